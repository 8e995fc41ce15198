/**
 * Writes test/fixtures/parquet from the JSONL benchmark samples of test/fixtures/benchmarks, in the
 * column types the hub's parquet conversions use (ARC `choices` a struct of two string lists, MMLU
 * `choices` a string list, integer gold indices as INT64), in several row groups so reading goes
 * group by group, plus the bad files the error tests need:
 *
 *   npx tsc -p . && node out/tools/writeParquetFixtures.js
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';

const ROOT = path.resolve(__dirname, '..', '..');
const SAMPLES = path.join(ROOT, 'test', 'fixtures', 'benchmarks');
const OUT = path.join(ROOT, 'test', 'fixtures', 'parquet');

type Row = Record<string, unknown>;
/** A parquet schema element as hyparquet-writer takes it (the parquet-format thrift fields). */
type SchemaElement = Parameters<typeof parquetWriteBuffer>[0]['schema'] extends (infer E)[] | undefined ? E : never;

const text = (name: string): SchemaElement => ({ name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });
const int64 = (name: string): SchemaElement => ({ name, type: 'INT64', repetition_type: 'OPTIONAL' });
/** A list of strings in the three-level layout parquet writers (pyarrow, hyparquet-writer) use. */
const textList = (name: string): SchemaElement[] => [
  { name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  text('element'),
];

function readSample(file: string): Row[] {
  return fs
    .readFileSync(path.join(SAMPLES, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
}

/** One parquet file of `rows`, columns in `names` order, `rowGroupSize` rows per group. */
function write(file: string, rows: Row[], names: string[], schema: SchemaElement[], rowGroupSize: number): void {
  const columnData = names.map((name) => ({ name, data: rows.map((r) => (typeof r[name] === 'number' && schema.some((s) => s.name === name && s.type === 'INT64') ? BigInt(r[name]) : r[name])) }));
  const buffer = parquetWriteBuffer({ columnData, schema: [{ name: 'schema', num_children: names.length }, ...schema], rowGroupSize });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, new Uint8Array(buffer));
  process.stdout.write(`${path.relative(ROOT, file)}: ${rows.length} rows\n`);
}

const arc = readSample('arc-challenge-test-sample.jsonl');
const arcSchema = [
  text('id'),
  text('question'),
  { name: 'choices', repetition_type: 'OPTIONAL', num_children: 2 } as SchemaElement,
  ...textList('text'),
  ...textList('label'),
  text('answerKey'),
];
const arcColumns = ['id', 'question', 'choices', 'answerKey'];
// A hub dataset folder: the test split in two shards (20 + 15 rows, row groups of 8), and a validation split.
write(path.join(OUT, 'arc-challenge', 'data', 'test-00000-of-00002.parquet'), arc.slice(0, 20), arcColumns, arcSchema, 8);
write(path.join(OUT, 'arc-challenge', 'data', 'test-00001-of-00002.parquet'), arc.slice(20), arcColumns, arcSchema, 8);
write(path.join(OUT, 'arc-challenge', 'data', 'validation-00000-of-00001.parquet'), arc.slice(0, 5), arcColumns, arcSchema, 8);

const mmlu = readSample('mmlu-test-sample.jsonl');
write(path.join(OUT, 'mmlu-test.parquet'), mmlu, ['question', 'choices', 'answer_idx', 'gold', 'subject'], [text('question'), ...textList('choices'), int64('answer_idx'), text('gold'), text('subject')], 7);

const gsm8k = readSample('gsm8k-test-sample.jsonl');
write(path.join(OUT, 'gsm8k-test.parquet'), gsm8k, ['question', 'answer'], [text('question'), text('answer')], 10);

// Bad input: MMLU with `choices` written as one string (the wrong column type), and a file cut short.
const flattened = mmlu.slice(0, 4).map((r) => ({ ...r, choices: (r.choices as string[]).join(' | ') }));
write(path.join(OUT, 'bad', 'mmlu-choices-as-text.parquet'), flattened, ['question', 'choices', 'answer_idx'], [text('question'), text('choices'), int64('answer_idx')], 4);
const whole = fs.readFileSync(path.join(OUT, 'gsm8k-test.parquet'));
fs.writeFileSync(path.join(OUT, 'bad', 'gsm8k-truncated.parquet'), whole.subarray(0, Math.floor(whole.length / 2)));
process.stdout.write(`${path.relative(ROOT, path.join(OUT, 'bad', 'gsm8k-truncated.parquet'))}: the first half of gsm8k-test.parquet\n`);
