import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadDataset, readBenchmark, type Question } from '../../../src/audit/dataset';
import { InputError } from '../../../src/common/errors';

// Compiled tests run from out/test/unit/audit; the fixtures stay in the source tree.
const FIXTURES = path.resolve(__dirname, '../../../../test/fixtures');
const parquet = (name: string) => path.join(FIXTURES, 'parquet', name);
const sample = (name: string) => path.join(FIXTURES, 'benchmarks', name);

function withoutPlace(questions: Question[]): Omit<Question, 'place'>[] {
  return questions.map(({ place: _place, ...q }) => q);
}

async function rejectsWith(p: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof InputError, `an InputError, got ${String(e)}`);
    assert.match(e.message, pattern);
    return true;
  });
}

test('a hub dataset folder: the test split read shard after shard, questions equal to the same rows in JSONL, each placed at its file and row', async () => {
  const folder = parquet('arc-challenge');
  const d = await readBenchmark(folder);
  const jsonl = loadDataset(sample('arc-challenge-test-sample.jsonl'));
  assert.equal(d.schema, 'arc-flat');
  assert.equal(d.format, 'choice');
  assert.equal(d.split, 'test');
  assert.deepEqual(withoutPlace(d.questions), withoutPlace(jsonl.questions));
  assert.deepEqual(d.questions[0].place, { file: path.join('data', 'test-00000-of-00002.parquet'), row: 0 });
  // Row groups of 8: row 19 is in the third group of the first shard, row 20 the first of the second.
  assert.deepEqual(d.questions[19].place, { file: path.join('data', 'test-00000-of-00002.parquet'), row: 19 });
  assert.deepEqual(d.questions[20].place, { file: path.join('data', 'test-00001-of-00002.parquet'), row: 0 });
  assert.equal(d.questions[20].line, 21);
  assert.deepEqual(d.questions[3].choices, jsonl.questions[3].choices, 'ARC choices {label[], text[]} from the nested struct column');
  assert.match(d.contentHash, /^[0-9a-f]{64}$/);

  const validation = await readBenchmark(folder, { split: 'validation' });
  assert.equal(validation.questions.length, 5);
  assert.equal(validation.split, 'validation');
  assert.notEqual(validation.contentHash, d.contentHash);
});

test('one .parquet file: MMLU choices[] and its INT64 answer index, GSM8K strings; same questions as the JSONL', async () => {
  const mmlu = await readBenchmark(parquet('mmlu-test.parquet'));
  assert.equal(mmlu.schema, 'mmlu');
  assert.equal(mmlu.split, undefined, 'a single file has no split');
  assert.deepEqual(withoutPlace(mmlu.questions), withoutPlace(loadDataset(sample('mmlu-test-sample.jsonl')).questions));
  assert.deepEqual(mmlu.questions[9].place, { file: 'mmlu-test.parquet', row: 9 });
  assert.equal(mmlu.questions[0].raw.answer_idx, 3, 'a 64-bit integer column reads as a number');

  const gsm8k = await readBenchmark(parquet('gsm8k-test.parquet'));
  assert.deepEqual(withoutPlace(gsm8k.questions), withoutPlace(loadDataset(sample('gsm8k-test-sample.jsonl')).questions));
  // JSONL and JSON keep their own reader.
  assert.deepEqual(await readBenchmark(sample('gsm8k-test-sample.jsonl')), loadDataset(sample('gsm8k-test-sample.jsonl')));
});

test('bad parquet input: a clear error naming the file and what is wrong', async () => {
  await rejectsWith(readBenchmark(parquet('bad/gsm8k-truncated.parquet')), /gsm8k-truncated\.parquet: not a readable parquet file \(.*\); expected a benchmark saved as parquet/);
  await rejectsWith(readBenchmark(parquet('bad/mmlu-choices-as-text.parquet')), /mmlu-choices-as-text\.parquet: no usable question; mmlu-choices-as-text\.parquet row 0 has columns \{question, choices, answer_idx\}.*MMLU .*field "choices" is a string; expected an array of strings/);
  await rejectsWith(readBenchmark(parquet('arc-challenge'), { split: 'train' }), /arc-challenge: no train split; expected data\/train-NNNNN-of-NNNNN\.parquet \(this folder has test, validation; choose one with --split\)/);
  await rejectsWith(readBenchmark(parquet('missing.parquet')), /cannot read dataset .*missing\.parquet: no such file or folder/);
  assert.throws(() => loadDataset(parquet('mmlu-test.parquet')), /mmlu-test\.parquet: a parquet benchmark; this step reads JSONL or JSON text only/);

  // A split with a shard missing is refused, not read in part.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-parquet-'));
  fs.mkdirSync(path.join(dir, 'data'));
  fs.copyFileSync(parquet('arc-challenge/data/test-00001-of-00002.parquet'), path.join(dir, 'data', 'test-00001-of-00002.parquet'));
  await rejectsWith(readBenchmark(dir), /split test has 2 shards but 1 are missing \(test-00000-of-00002\.parquet\)/);
  // A folder with no parquet at all.
  await rejectsWith(readBenchmark(fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-empty-'))), /no test split; .*no \.parquet file in it or in its data\/ folder/);
  // A footer that is there but a page that is damaged: the row group and file are named.
  const bytes = fs.readFileSync(parquet('gsm8k-test.parquet'));
  for (let i = 40; i < 400; i++) bytes[i] = 0xff;
  fs.writeFileSync(path.join(dir, 'damaged.parquet'), bytes);
  await rejectsWith(readBenchmark(path.join(dir, 'damaged.parquet')), /damaged\.parquet: row group 0 \(rows 0–9\) cannot be read: /);
});
