/**
 * The fuzz pass's properties (fast-check): every reader that takes untrusted bytes — the dataset
 * reader, the answer readers (model output and gold), the safetensors header reader, the run-file
 * readers and appender, the engine service decoder. The contract under test: bad input is an
 * InputError (or a Decoded failure) naming where it is — never another exception, a hang, a huge
 * allocation, or a finished record lost. Hangs are caught from outside (fuzzWatchdog.ts), since a
 * synchronous loop cannot be interrupted from within.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { InputError } from '../../../src/common/errors';
import { parseDataset } from '../../../src/audit/dataset/dataset';
import { grade } from '../../../src/audit/answers/grade';
import type { AnswerFormat, Question } from '../../../src/audit/question';
import { readSafetensorsHeader } from '../../../src/engine/checkpoint/safetensors';
import { JsonLinesAppender, readJsonLines, readManifest } from '../../../src/audit/store/runStore';
import { readComparison } from '../../../src/audit/store/comparisonStore';
import { decodeEvent, decodeRequest, encodeLine, LineSplitter, type EngineRequest } from '../../../src/service/protocol';

/** How one property ran: fast-check's counts, and its report (seed, path, shrunk input) on failure. */
export interface FuzzOutcome {
  numRuns: number;
  failed: boolean;
  report?: string;
}

export interface FuzzSettings {
  seed: number;
  /** Time budget in ms; fast-check stops starting new inputs after it. */
  ms: number;
  /** A folder the property may write its files into. */
  root: string;
  /** Called with each input before it runs, so a watchdog can name an input that never returns. */
  observe(input: unknown): void;
}

/** Inputs every property tries whatever the time budget, so a loaded machine still fuzzes. */
export const MIN_RUNS = 100;

/**
 * MIN_RUNS inputs first (the examples among them), then more until `ms` has passed since the
 * start: a busy machine (test files run in parallel) still tries MIN_RUNS, an idle one many more.
 */
function runProperty<T>(arb: fc.Arbitrary<T>, check: (value: T) => void, s: FuzzSettings, examples: T[] = []): FuzzOutcome {
  const started = Date.now();
  const property = fc.property(arb, (value) => {
    s.observe(value);
    check(value);
  });
  let numRuns = 0;
  const phases: fc.Parameters<[T]>[] = [
    { seed: s.seed, numRuns: MIN_RUNS, examples: examples.map((e) => [e] as [T]) },
    { seed: s.seed + 1, numRuns: Number.MAX_SAFE_INTEGER, interruptAfterTimeLimit: s.ms, skipAllAfterTimeLimit: s.ms },
  ];
  for (const parameters of phases) {
    const left = s.ms - (Date.now() - started);
    if (parameters.interruptAfterTimeLimit !== undefined) {
      if (left <= 0) break;
      parameters.interruptAfterTimeLimit = parameters.skipAllAfterTimeLimit = left;
    }
    const details = fc.check(property, parameters);
    numRuns += details.numRuns;
    if (details.failed) {
      const err = details.errorInstance;
      return { numRuns, failed: true, report: `${fc.defaultReportMessage(details)}\n${err instanceof Error ? err.stack : String(err)}` };
    }
  }
  return { numRuns, failed: false };
}

/** The error is an InputError (the contract for bad input); anything else is a finding. */
function onlyInputError(fn: () => void): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
  }
}

/** Edits that break text at random places: insert, delete, or replace a slice. */
function mutated(base: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(base, fc.array(fc.tuple(fc.nat(), fc.nat(8), fc.string({ unit: 'binary', maxLength: 6 })), { maxLength: 4 })).map(([text, edits]) => {
    let s = text;
    for (const [at, del, ins] of edits) {
      const i = s.length === 0 ? 0 : at % (s.length + 1);
      s = s.slice(0, i) + ins + s.slice(i + del);
    }
    return s;
  });
}

/** Text made of the pieces answer readers look for, so markers, braces and numbers meet often. */
const answerText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc
    .array(
      fc.oneof(
        fc.constantFrom('\\boxed', '\\fbox', '\\boxed ', '{', '}', '\\{', '\\}', '\\', '####', '#### ', 'Answer:', 'answer is ', 'The final answer is ', '$', ',', '.', '-', '/', 'e', 'E', '%', ' ', '\n', '(', ')', '**', '\\frac', '\\text{', 'A', 'b', 'x', 'sep'),
        fc.stringMatching(/^[0-9]{1,12}$/),
        fc.string({ maxLength: 4 }),
      ),
      { maxLength: 24 },
    )
    .map((parts) => parts.join('')),
);

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const questionLine = fc.oneof(
  fc.record({ question: fc.string(), answer: fc.oneof(fc.string(), answerText, fc.string().map((s) => `${s}\n#### ${s}`), fc.integer()) }, { requiredKeys: [] }),
  fc.record({ id: fc.oneof(fc.string(), fc.integer(), jsonValue), problem: fc.string(), solution: fc.oneof(fc.string().map((s) => `\\boxed{${s}}`), answerText) }, { requiredKeys: [] }),
  fc.record({ id: fc.string(), question: fc.record({ stem: fc.string(), choices: fc.array(fc.record({ label: fc.string({ maxLength: 2 }), text: fc.string() })) }), answerKey: fc.string({ maxLength: 2 }) }, { requiredKeys: [] }),
  fc.record({ question: fc.string(), choices: fc.oneof(fc.array(fc.string()), fc.record({ label: fc.array(fc.string()), text: fc.array(fc.string()) })), answer: fc.oneof(fc.integer(), fc.string()) }, { requiredKeys: [] }),
  fc.dictionary(fc.string({ maxLength: 8 }), jsonValue, { maxKeys: 4 }),
  jsonValue,
);
const datasetText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 400 }),
  mutated(fc.array(questionLine, { maxLength: 8 }).map((lines) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n')),
  mutated(fc.array(questionLine, { maxLength: 8 }).map((lines) => JSON.stringify(lines, null, 2))),
  fc.array(questionLine, { maxLength: 8 }).chain((lines) => fc.constantFrom('\n', '\r\n').map((eol) => '\ufeff' + lines.map((l) => JSON.stringify(l)).join(eol))),
);
const FORMATS = ['auto', 'gsm8k', 'boxed', 'choice', 'exact'] as const;

function datasetReader(s: FuzzSettings): FuzzOutcome {
  // The input that hung the reader (a MATH solution whose \boxed lost its brace), always tried first.
  const hung: [string, (typeof FORMATS)[number]] = [JSON.stringify({ problem: 'p', solution: '\\boxedJn*}0T&1I}' }) + '\n', 'auto'];
  return runProperty(
    fc.tuple(datasetText, fc.constantFrom(...FORMATS)),
    ([text, format]) => {
      onlyInputError(() => {
        const d = parseDataset('/fuzz/data.jsonl', text, { format });
        const lines = text.split('\n').length;
        assert.equal(new Set(d.questions.map((q) => q.id)).size, d.questions.length, 'ids are unique');
        for (const q of d.questions) assert.ok(q.line >= 1 && q.line <= lines, `question line ${q.line} of ${lines}`);
        for (const issue of d.issues) assert.ok(issue.line >= 1 && issue.line <= lines, `issue line ${issue.line} of ${lines}`);
      });
    },
    s,
    [hung],
  );
}

function answerReaders(s: FuzzSettings): FuzzOutcome {
  const question = (format: AnswerFormat, gold: string): Question => ({
    id: 'q',
    line: 1,
    schema: 'generic',
    format,
    text: 't',
    gold,
    raw: {},
    ...(format === 'choice' ? { choices: ['A', 'B', 'C', 'D'].map((label) => ({ label, text: `option ${label}` })) } : {}),
  });
  const format = fc.constantFrom<AnswerFormat>('gsm8k', 'boxed', 'choice', 'exact');
  return runProperty(
    fc.tuple(answerText, format, fc.oneof(answerText, fc.constantFrom('42', '1e3', '1/2', '\\frac{1}{2}', 'A')), fc.boolean()),
    ([output, f, gold, truncated]) => {
      const g = grade(output, question(f, gold), { truncated });
      assert.ok(g.answer === null || typeof g.answer === 'string');
      assert.equal(typeof g.correct, 'boolean');
      if (g.answer === null) assert.equal(g.correct, false, 'no answer is never correct');
    },
    s,
    [['\\boxedJn*}0T&1I}', 'boxed', '1', false] as [string, AnswerFormat, string, boolean]],
  );
}

function safetensorsHeader(s: FuzzSettings): FuzzOutcome {
  const file = path.join(s.root, 'w.safetensors');
  const dtype = fc.oneof(fc.constantFrom('F32', 'F16', 'BF16', 'F64', 'I64', 'BOOL', 'U8', 'I8'), fc.string({ maxLength: 5 }), jsonValue);
  const dim = fc.oneof(fc.nat(8), fc.integer(), fc.double(), fc.constantFrom(2 ** 53, 2 ** 62, -1, 1e300), jsonValue);
  const entry = fc.record({ dtype, shape: fc.oneof(fc.array(dim, { maxLength: 4 }), jsonValue), data_offsets: fc.oneof(fc.tuple(dim, dim), fc.array(dim, { maxLength: 3 }), jsonValue) }, { requiredKeys: [] });
  const header = fc.oneof(
    fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(entry, jsonValue), { maxKeys: 5 }).map((h) => JSON.stringify(h)),
    mutated(fc.dictionary(fc.string({ maxLength: 12 }), entry, { maxKeys: 4 }).map((h) => JSON.stringify({ __metadata__: { format: 'pt' }, ...h }))),
    fc.string({ unit: 'binary', maxLength: 200 }),
  );
  const declared = fc.oneof(fc.constant<bigint | undefined>(undefined), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.constantFrom(0n, 7n, 2n ** 63n, 2n ** 64n - 1n));
  return runProperty(
    fc.tuple(header, declared, fc.nat(256), fc.boolean()),
    ([json, length, bodyBytes, truncate]) => {
      const head = Buffer.from(json, 'utf8');
      const len = Buffer.alloc(8);
      len.writeBigUInt64LE(length ?? BigInt(head.length));
      let bytes = Buffer.concat([len, head, Buffer.alloc(bodyBytes)]);
      if (truncate) bytes = bytes.subarray(0, bytes.length >> 1);
      fs.writeFileSync(file, bytes);
      onlyInputError(() => {
        for (const tensor of readSafetensorsHeader(file)) {
          assert.ok(tensor.byteOffset >= 8 && tensor.byteOffset + tensor.byteLength <= bytes.length, `${tensor.name} lies inside the file`);
          assert.ok(tensor.shape.every((d) => Number.isSafeInteger(d) && d >= 0), `${tensor.name} has a whole-number shape`);
        }
      });
    },
    s,
  );
}

function runFiles(s: FuzzSettings): FuzzOutcome {
  const folder = path.join(s.root, 'run');
  fs.mkdirSync(folder, { recursive: true });
  const recordLines = fc.array(fc.oneof(jsonValue.map((v) => JSON.stringify(v)), fc.string({ unit: 'binary', maxLength: 40 }), fc.constant('')), { maxLength: 8 });
  const text = fc.oneof(recordLines.chain((ls) => fc.boolean().map((nl) => ls.join('\n') + (nl ? '\n' : ''))), mutated(recordLines.map((ls) => ls.join('\n'))), fc.string({ unit: 'binary', maxLength: 300 }));
  const other = fc.oneof(jsonValue.map((v) => JSON.stringify(v)), fc.string({ unit: 'binary', maxLength: 80 }), mutated(jsonValue.map((v) => JSON.stringify({ kind: 'reach-audit-comparison', v }))));
  return runProperty(
    fc.tuple(text, other),
    ([records, otherText]) => {
      const file = path.join(folder, 'records.jsonl');
      fs.writeFileSync(file, records);
      onlyInputError(() => {
        const read = readJsonLines(file);
        const nonBlank = records.split('\n').filter((l) => l.trim() !== '').length;
        assert.ok(read.values.length <= nonBlank);
        if (read.torn !== undefined) {
          assert.ok(!records.endsWith('\n'), 'only an unterminated last line is torn');
          assert.equal(read.warnings.length, 1);
          assert.match(read.warnings[0], /records\.jsonl:\d+: ignoring a torn last line/);
        }
      });
      for (const name of ['manifest.json', 'comparison.json']) fs.writeFileSync(path.join(folder, name), otherText);
      onlyInputError(() => {
        const m = readManifest(folder);
        assert.ok(typeof m === 'object' && m !== null && !Array.isArray(m));
      });
      onlyInputError(() => {
        const c = readComparison(folder);
        assert.ok(c === undefined || c.kind === 'reach-audit-comparison');
      });
    },
    s,
  );
}

function recordsAppender(s: FuzzSettings): FuzzOutcome {
  const file = path.join(s.root, 'append', 'records.jsonl');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const record = fc.record({ id: fc.string(), n: fc.integer() });
  return runProperty(
    fc.tuple(fc.array(record, { maxLength: 5 }), fc.string({ unit: 'binary', maxLength: 30 }), record),
    ([done, rawTail, next]) => {
      const tail = rawTail.replace(/\n/g, '');
      fs.rmSync(`${file}.torn.txt`, { force: true });
      fs.writeFileSync(file, done.map((r) => JSON.stringify(r) + '\n').join('') + tail);
      const out = new JsonLinesAppender(file);
      out.append(next);
      out.close();
      const read = readJsonLines<unknown>(file);
      assert.equal(read.torn, undefined);
      let tailValue: unknown[] = [];
      try {
        if (tail.trim() !== '') tailValue = [JSON.parse(tail)];
      } catch {
        tailValue = [];
      }
      const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;
      assert.deepEqual(read.values, plain([...done, ...tailValue, next]), 'finished records kept, in order');
    },
    s,
  );
}

function serviceDecoder(s: FuzzSettings): FuzzOutcome {
  const requests: EngineRequest[] = [
    { type: 'cancel', id: 'a' },
    { type: 'shutdown' },
    { type: 'audit', id: 'b', options: { model: '/m', data: '/d.jsonl', probes: ['sample:2'], seed: 1 } } as unknown as EngineRequest,
  ];
  const line = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    jsonValue.map((v) => JSON.stringify(v)),
    mutated(fc.constantFrom(...requests.map((r) => JSON.stringify(r)))),
    fc
      .record({ type: fc.constantFrom('audit', 'auditQuestion', 'compare', 'cancel', 'shutdown', 'hello', 'progress', 'record', 'result', 'error'), id: jsonValue, options: fc.dictionary(fc.string({ maxLength: 10 }), jsonValue), question: jsonValue }, { requiredKeys: ['type'] })
      .map((v) => JSON.stringify(v)),
  );
  return runProperty(
    fc.tuple(line, fc.array(fc.nat(40), { maxLength: 6 })),
    ([text, cuts]) => {
      for (const decoded of [decodeRequest(text), decodeEvent(text)]) {
        if (!decoded.ok) assert.ok(typeof decoded.message === 'string' && decoded.message.length > 0, 'a failure says what is wrong');
      }
      // Valid lines, split at arbitrary byte positions, come back whole and decode to what was sent.
      const stream = Buffer.from(requests.map(encodeLine).join('') + 'x' + text.replace(/\n/g, ' ') + '\n', 'utf8');
      const got: string[] = [];
      const splitter = new LineSplitter((l) => got.push(l));
      let at = 0;
      for (const cut of cuts) {
        splitter.push(stream.subarray(at, Math.min(stream.length, at + cut)));
        at = Math.min(stream.length, at + cut);
      }
      splitter.push(stream.subarray(at));
      splitter.end();
      assert.equal(got.length, requests.length + 1);
      requests.forEach((r, i) => {
        const d = decodeRequest(got[i]);
        assert.ok(d.ok, `request ${i} decodes: ${d.ok ? '' : d.message}`);
        assert.deepEqual(d.value, r);
      });
    },
    s,
  );
}

/** Every property by name, in the order the test runs them. */
export const READER_PROPERTIES = {
  'dataset reader': datasetReader,
  'answer readers': answerReaders,
  'safetensors header': safetensorsHeader,
  'run files': runFiles,
  'records appender': recordsAppender,
  'service decoder': serviceDecoder,
} satisfies Record<string, (s: FuzzSettings) => FuzzOutcome>;

export type ReaderPropertyName = keyof typeof READER_PROPERTIES;
