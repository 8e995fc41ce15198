/**
 * The readers under hostile input made at test time: lm-eval samples nesting thousands of levels,
 * with Python's NaN, or a first line past 1 MiB; a text file just past V8's longest string; parquet
 * pages that decompress past the bounds; hub shards of two benchmarks; a FIFO results file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { constants as bufferConstants } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { loadDataset, readBenchmark } from '../../../src/audit/dataset';
import { readParquetRows } from '../../../src/audit/dataset/parquetBenchmark';
import { readLmEvalSamples } from '../../../src/audit/imports';
import { MAX_TEXT_FILE_BYTES } from '../../../src/common';
import { InputError } from '../../../src/common/errors';
import { readHarnessLogs } from '../../../src/service';
import { selectQuestions } from '../../../src/service/auditInputs';
import { nestedJson } from '../../support/hostileArchives';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-hostile-'));

function sampleLine(docId: number, extra = ''): string {
  return `{"doc_id": ${docId}, "doc": {"question": "What is 2 + ${docId}?", "answer": "#### ${docId + 2}"}, "target": "${docId + 2}", "arguments": {"gen_args_0": {"arg_0": "Q: What is 2 + ${docId}?", "arg_1": {"until": ["\\n"], "do_sample": false${extra}}}}, "resps": [["${docId + 2}"]], "filtered_resps": ["${docId + 2}"], "exact_match": 1.0}`;
}

async function rejectsWith(p: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof InputError, `an InputError, got ${String(e)}`);
    assert.match(e.message, pattern);
    return true;
  });
}

test('lm-eval gen_args nesting 6,000 levels: refused with the file, line, field and bound, not a stack overflow', () => {
  const text = [sampleLine(0), sampleLine(1, `, "extra": ${nestedJson(6000)}`)].join('\n') + '\n';
  assert.throws(() => readLmEvalSamples([{ file: 'samples_gsm8k_2024-01-01T00-00-00.jsonl', text }]), /samples_gsm8k_2024-01-01T00-00-00\.jsonl:2: field arguments\.gen_args_0\.arg_1\.extra… \(\d+ levels more\) nests more than 1000 objects and arrays deep/);
});

test('a dataset row nesting 6,000 levels is reported at its line', () => {
  const file = path.join(root, 'deep.jsonl');
  fs.writeFileSync(file, `{"question": "q1", "answer": "#### 1"}\n{"question": "q2", "answer": "#### 2", "meta": ${nestedJson(6000)}}\n`);
  const d = loadDataset(file);
  assert.equal(d.questions.length, 1);
  assert.match(d.issues[0].message, /field meta\.a\.a\.a… .* nests more than 1000/);
  assert.equal(d.issues[0].line, 2);
});

test("lm-eval samples with Python's NaN, and a first line past 1 MiB, are detected and imported", async () => {
  const nan = path.join(root, 'samples_gsm8k_2024-01-01T00-00-00.jsonl');
  fs.writeFileSync(nan, sampleLine(0).replace('"exact_match": 1.0', '"exact_match": NaN') + '\n' + sampleLine(1) + '\n');
  const a = await readHarnessLogs([nan]);
  assert.equal(a.log.questions.length, 2);
  assert.deepEqual(a.log.questions[0].readings.none.scores, {});
  const long = path.join(root, 'samples_gsm8k_2024-01-02T00-00-00.jsonl');
  fs.writeFileSync(long, sampleLine(0).replace('"target": "2"', `"target": "2", "pad": "${'x'.repeat(2 << 20)}"`) + '\n' + sampleLine(1) + '\n');
  const b = await readHarnessLogs([long]);
  assert.equal(b.log.questions.length, 2);
});

test("text reads stop below V8's longest string, with our words: a dataset and a log of 536,870,900 bytes", async () => {
  assert.ok(MAX_TEXT_FILE_BYTES < bufferConstants.MAX_STRING_LENGTH);
  const big = path.join(root, 'big.jsonl');
  fs.writeFileSync(big, '');
  fs.truncateSync(big, 536_870_900); // sparse: no disk, no memory
  assert.throws(() => loadDataset(big), /big\.jsonl is 536870900 bytes, more than the 535822336 bytes expected of it \(a fixed bound, below the longest text JavaScript can hold/);
  await rejectsWith(readHarnessLogs([big]), /big\.jsonl is 536870900 bytes, more than the 535822336 bytes expected of it \(a fixed bound/);
  fs.rmSync(big);
});

test('a FIFO where the lm-eval results file should be is named as a FIFO, not "not valid JSON"', async () => {
  const dir = fs.mkdtempSync(path.join(root, 'fifo-'));
  const samples = path.join(dir, 'samples_gsm8k_2024-01-03T00-00-00.jsonl');
  fs.writeFileSync(samples, sampleLine(0) + '\n');
  const made = spawnSync('mkfifo', [path.join(dir, 'results_2024-01-03T00-00-00.json')]);
  if (made.status !== 0) return;
  await rejectsWith(readHarnessLogs([samples]), /results_2024-01-03T00-00-00\.json is a FIFO \(named pipe\); expected a regular file \(the results file of samples_gsm8k/);
});

const textColumn = (name: string, values: string[]) => ({ name, data: values, type: 'STRING' as const });

test('a zstd page that would expand to gigabytes is decompressed only to its declared size', async () => {
  // A zstd frame of RLE blocks: 4 bytes a block, 128 KiB out; 8,000 blocks ≈ 1 GiB.
  const blocks = 8000;
  const frame = Buffer.alloc(6 + 4 * blocks);
  frame.set([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38]);
  for (let i = 0; i < blocks; i++) {
    const h = (131072 << 3) | (1 << 1) | (i === blocks - 1 ? 1 : 0);
    frame.set([h & 255, (h >> 8) & 255, (h >> 16) & 255, 97], 6 + 4 * i);
  }
  const bytes = parquetWriteBuffer({ columnData: [textColumn('question', ['q']), textColumn('answer', ['1'])], codec: 'ZSTD', compressors: { ZSTD: () => frame } });
  const file = path.join(root, 'zstd-bomb.parquet');
  fs.writeFileSync(file, new Uint8Array(bytes));
  const before = process.memoryUsage().rss;
  const started = Date.now();
  await assert.rejects(readBenchmark(file), /zstd-bomb\.parquet: row group 0 \(rows 0–0\)/);
  assert.ok(Date.now() - started < 3000, `refused in ${Date.now() - started} ms`);
  assert.ok(process.memoryUsage().rss - before < 300 * 2 ** 20, 'the frame was not expanded');
});

test('hub shards of two benchmarks (different columns) are refused, naming both shards', async () => {
  const dir = path.join(root, 'mixed', 'data');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'test-00000-of-00002.parquet'), new Uint8Array(parquetWriteBuffer({ columnData: [textColumn('question', ['a', 'b']), textColumn('answer', ['#### 1', '#### 2'])] })));
  fs.writeFileSync(path.join(dir, 'test-00001-of-00002.parquet'), new Uint8Array(parquetWriteBuffer({ columnData: [textColumn('problem', ['c']), textColumn('solution', ['\\boxed{3}'])] })));
  await rejectsWith(readBenchmark(path.join(root, 'mixed')), /test-00001-of-00002\.parquet: its columns \(problem:BYTE_ARRAY, solution:BYTE_ARRAY\) differ from those of .*test-00000-of-00002\.parquet \(question:BYTE_ARRAY, answer:BYTE_ARRAY\); the shards of one split must be of one benchmark/);
});

test('a results file nesting 6,000 levels is refused naming it and the bound', async () => {
  const dir = fs.mkdtempSync(path.join(root, 'deep-results-'));
  const samples = path.join(dir, 'samples_gsm8k_2024-01-04T00-00-00.jsonl');
  fs.writeFileSync(samples, sampleLine(0) + '\n');
  fs.writeFileSync(path.join(dir, 'results_2024-01-04T00-00-00.json'), `{"model_name": "m", "config": ${nestedJson(6000)}}`);
  await rejectsWith(readHarnessLogs([samples]), /results_2024-01-04T00-00-00\.json: field config\.a\.a\.a… .* nests more than 1000 objects and arrays deep/);
});

test('4,800 unknown --ids are refused in a short message: the first ten and a count', () => {
  const file = path.join(root, 'ids.jsonl');
  fs.writeFileSync(file, '{"id": "q1", "question": "q", "answer": "#### 1"}\n');
  const ids = Array.from({ length: 4800 }, (_, i) => `missing-question-${i}`);
  assert.throws(
    () => selectQuestions(loadDataset(file), { ids, limit: undefined }),
    (e: unknown) => e instanceof InputError && /--ids: no question with id "missing-question-0", .* "missing-question-9" and 4790 more in/.test(e.message) && e.message.length < 1000,
  );
});

test('--limit reads a parquet benchmark\'s first rows only: 2 questions of 200,000 rows, the content hash still the whole file\'s', async () => {
  const n = 200_000;
  const question = Array.from({ length: n }, (_, i) => (i < 4 ? '' : `What is ${i} plus ${i}?`));
  const answer = Array.from({ length: n }, (_, i) => `#### ${2 * i}`);
  const file = path.join(root, 'many-rows.parquet');
  fs.writeFileSync(file, new Uint8Array(parquetWriteBuffer({ columnData: [textColumn('question', question), textColumn('answer', answer)] })));
  const all = await readBenchmark(file);
  assert.equal(all.questions.length, n - 4);
  // Read until two questions parse: the four empty rows ahead of them are read past, not counted.
  const started = Date.now();
  const limited = await readBenchmark(file, { limit: 2 });
  const ms = Date.now() - started;
  // Rows are read in growing batches (2, then 2·2 + 64): a few dozen, not 200,000; --limit then takes the first two.
  assert.ok(limited.questions.length >= 2 && limited.questions.length < 100, `${limited.questions.length} questions read`);
  assert.deepEqual(limited.questions.slice(0, 2).map((q) => q.text), ['What is 4 plus 4?', 'What is 5 plus 5?']);
  assert.deepEqual(limited.questions.slice(0, 2).map((q) => q.id), all.questions.slice(0, 2).map((q) => q.id));
  assert.equal(limited.contentHash, all.contentHash);
  assert.equal(limited.schema, all.schema);
  assert.equal(limited.issues.length, 4);
  const rows = await readParquetRows(file, 'test', 3);
  assert.equal(rows.rows.length, 3);
  assert.equal(rows.complete, false);
  assert.ok(ms < 5000, `${ms} ms`);
});

/**
 * A one-row SNAPPY parquet file whose last page header is rewritten to declare 2³¹ − 1 bytes
 * uncompressed (a 5-byte varint in place of a 1-byte one, the column chunk's compressed size in the
 * footer grown to match): built here from hyparquet-writer's output, not committed.
 */
function lyingSnappyPage(): Uint8Array {
  const honest = new Uint8Array(parquetWriteBuffer({ columnData: [textColumn('question', ['What is 1 + 1?']), textColumn('answer', ['#### 2'])], codec: 'SNAPPY' }));
  const footerName = Buffer.from(honest).lastIndexOf(Buffer.from('answer'));
  // The answer column's ColumnMetaData after its name: codec, num_values, total_uncompressed_size, total_compressed_size (i64 fields, 0x16).
  const compressedAt = footerName + 13;
  assert.deepEqual([honest[compressedAt - 1], honest[compressedAt]], [0x16, 2 * 35], 'hyparquet-writer laid the footer out as expected');
  // The page starts at the answer column's data_page_offset (47): 0x15 type, 0x15 uncompressed_page_size (zigzag varint).
  const page = 47;
  assert.deepEqual([honest[page], honest[page + 2]], [0x15, 0x15], 'hyparquet-writer laid the page header out as expected');
  const lying = new Uint8Array(honest.length + 4);
  lying.set(honest.subarray(0, page + 3));
  lying.set([0xfe, 0xff, 0xff, 0xff, 0x0f], page + 3); // zigzag(2³¹ − 1)
  lying.set(honest.subarray(page + 4), page + 8);
  lying[compressedAt + 4] = 2 * 39;
  return lying;
}

test('a crafted SNAPPY page declaring 2³¹ − 1 bytes is refused from its header, before any buffer of that size', async () => {
  const file = path.join(root, 'snappy-lie.parquet');
  const bytes = lyingSnappyPage();
  assert.ok(bytes.length < 400, `${bytes.length} bytes`);
  fs.writeFileSync(file, bytes);
  const before = process.memoryUsage().rss;
  const started = Date.now();
  await rejectsWith(readBenchmark(file), /snappy-lie\.parquet: row group 0 \(rows 0–0\): a SNAPPY page declares 214748364\d bytes decompressed, more than the 268435456 a page may \(fixed bounds/);
  assert.ok(Date.now() - started < 3000, `refused in ${Date.now() - started} ms`);
  assert.ok(process.memoryUsage().rss - before < 300 * 2 ** 20, 'no 2 GB buffer');
});
