/**
 * The engine service protocol: requests and events survive encode → decode unchanged, every bad
 * line is answered with a message naming the field and what was expected, the option table covers
 * every flag of `reach-audit audit`, and line framing holds whatever the chunk boundaries.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AUDIT_FLAGS, AUDIT_FLAGS_HELP, AUDIT_OPTIONS, optionsFromFlags, type OptionSpec } from '../../../src/service/auditOptions';
import {
  LineSplitter,
  PROTOCOL_VERSION,
  decodeEvent,
  decodeRequest,
  encodeLine,
  type EngineEvent,
  type EngineRequest,
} from '../../../src/service/protocol';

const options = { model: '/m', data: '/d.jsonl', probes: ['sample:2', 'routes:4'], select: ['majority'], repair: true, limit: 3, seed: 7, searchC: 1.5, stop: ['\n\n'], workspace: '/w' };

function failure(line: string): { id: string | null; message: string } {
  const d = decodeRequest(line);
  assert.equal(d.ok, false, `expected ${line} to be refused`);
  return d as { ok: false; id: string | null; message: string };
}

describe('requests', () => {
  test('every request kind survives encode → decode', () => {
    const requests: EngineRequest[] = [
      { type: 'audit', id: 'a', options },
      { type: 'auditQuestion', id: 'b', question: { line: 12 }, options: { model: '/m', data: '/d.jsonl', probes: ['routes:8'] } },
      { type: 'auditQuestion', id: 'c', question: { id: 'gsm-17' }, options: { model: '/m', data: '/d.jsonl', repair: true } },
      { type: 'compare', id: 'd', options: { baseRun: '/r1', tunedRun: '/r2' } },
      { type: 'compare', id: 'e', options: { baseModel: '/b', tunedModel: '/t', data: '/d.jsonl', limit: 5 } },
      { type: 'cancel', id: 'a' },
      { type: 'shutdown' },
    ];
    for (const r of requests) {
      const line = encodeLine(r);
      assert.ok(line.endsWith('\n') && !line.slice(0, -1).includes('\n'), 'one line');
      assert.deepEqual(decodeRequest(line.trimEnd()), { ok: true, value: r });
    }
  });

  test('a line that is not JSON, or not an object, is refused without an id', () => {
    assert.match(failure('garbage').message, /not valid JSON.*one JSON object per line/);
    assert.equal(failure('garbage').id, null);
    assert.match(failure('[1,2]').message, /expected a JSON object, got an array/);
    assert.match(failure('"audit"').message, /expected a JSON object, got the string "audit"/);
  });

  test('bad fields are named, with what was expected; the id is kept when it is readable', () => {
    let f = failure(JSON.stringify({ type: 'audti', id: 'x' }));
    assert.match(f.message, /type: expected one of audit, auditQuestion, compare, cancel, shutdown, got the string "audti"/);
    assert.equal(f.id, 'x');
    assert.match(failure(JSON.stringify({ type: 'audit', options })).message, /id: expected a non-empty string/);
    f = failure(JSON.stringify({ type: 'audit', id: 'x', options: { ...options, probes: 'sample:2' } }));
    assert.match(f.message, /options\.probes: expected an array of strings, got the string "sample:2"/);
    assert.equal(f.id, 'x');
    assert.match(failure(JSON.stringify({ type: 'audit', id: 'x', options: { data: '/d' } })).message, /options\.model: missing \(required\)/);
    assert.match(failure(JSON.stringify({ type: 'audit', id: 'x', options: { ...options, limt: 3 } })).message, /options\.limt: unknown option; expected one of model, workspace, data/);
    assert.match(failure(JSON.stringify({ type: 'audit', id: 'x', options: { ...options, limit: -1 } })).message, /options\.limit: expected a whole number >= 0, got number -1/);
    assert.match(failure(JSON.stringify({ type: 'audit', id: 'x', options: { ...options, repair: 'yes' } })).message, /options\.repair: expected true or false/);
    assert.match(failure(JSON.stringify({ type: 'audit', id: 'x', options, extra: 1 })).message, /extra: unknown field of a 'audit' request/);
    assert.match(failure(JSON.stringify({ type: 'cancel' })).message, /id: expected a non-empty string/);
  });

  test('auditQuestion needs exactly one of id or line, and takes no selection options', () => {
    const base = { type: 'auditQuestion', id: 'q', options: { model: '/m', data: '/d' } };
    assert.match(failure(JSON.stringify({ ...base, question: { id: 'a', line: 2 } })).message, /question: expected \{"id": "..."\} or \{"line": N\}/);
    assert.match(failure(JSON.stringify(base)).message, /question: expected .* got nothing/);
    assert.match(failure(JSON.stringify({ ...base, question: { line: 0 } })).message, /question\.line: expected a line number >= 1/);
    assert.match(failure(JSON.stringify({ ...base, question: { line: 2.5 } })).message, /question\.line: expected a whole number/);
    assert.match(failure(JSON.stringify({ ...base, question: { line: 2 }, options: { model: '/m', data: '/d', ids: ['a'] } })).message, /options\.ids: unknown option/);
  });

  test('compare takes either two runs or two models with a dataset', () => {
    assert.match(failure(JSON.stringify({ type: 'compare', id: 'c', options: { baseRun: '/r1' } })).message, /options\.tunedRun: missing/);
    assert.match(failure(JSON.stringify({ type: 'compare', id: 'c', options: { baseModel: '/b', tunedModel: '/t' } })).message, /options\.data: missing/);
    assert.match(failure(JSON.stringify({ type: 'compare', id: 'c', options: { baseRun: '/r1', tunedRun: '/r2', probes: ['routes:2'] } })).message, /options\.probes: unknown option/);
  });

  // --json is about printing (not an audit option); a shard is for the command line (one process's
  // share of a run spread over machines), and so is --template-date (pinning the chat template's
  // day for shards started apart; an audit VS Code starts takes today's, a resume the run's).
  // Remote servers are request options: the engine process opens them; so is --realized-from (VS
  // Code's Add Probes to This Log… sends it).
  const COMMAND_LINE_ONLY = ['template-date', 'shard'];
  test('every flag of `reach-audit audit` has a request option (except the command-line-only ones), and --help names it', () => {
    const sample: Record<OptionSpec['kind'], { value: unknown; text: string | string[] | boolean }> = {
      string: { value: 'x', text: 'x' },
      number: { value: 0.5, text: '0.5' },
      wholeNumber: { value: 3, text: '3' },
      boolean: { value: true, text: true },
      strings: { value: ['a', 'b'], text: 'a,b' },
    };
    for (const [key, spec] of Object.entries(AUDIT_OPTIONS) as [string, OptionSpec][]) {
      const cli = AUDIT_FLAGS[spec.flag as keyof typeof AUDIT_FLAGS] as { type: string; multiple?: boolean } | undefined;
      assert.ok(cli, `${key} maps to the flag --${spec.flag}`);
      assert.equal(cli.type === 'boolean', spec.kind === 'boolean', key);
      assert.ok(AUDIT_FLAGS_HELP.some((line) => line.startsWith(`  --${spec.flag} `) || line === `  --${spec.flag}`), `--help shows --${spec.flag}`);
      // The same value given as a flag and as a request field means the same option.
      // A whole number at the option's least where that is above the sample's (--fork-probe takes at least 4).
      const least = spec.kind === 'wholeNumber' && spec.min !== undefined && spec.min > 3 ? spec.min : undefined;
      const { value, text } = least === undefined ? sample[spec.kind] : { value: least, text: String(least) };
      const flagText = cli.multiple ? ['a', 'b'] : text;
      assert.deepEqual(optionsFromFlags({ [spec.flag]: flagText } as never), { [key]: value }, `--${spec.flag}`);
      const request = { type: 'audit', id: 'x', options: { model: '/m', data: '/d', [key]: value } };
      if (COMMAND_LINE_ONLY.includes(spec.flag)) assert.match(failure(JSON.stringify(request)).message, new RegExp(`options\\.${key}: unknown option`), key);
      else assert.deepEqual(decodeRequest(JSON.stringify(request)), { ok: true, value: request }, `options.${key}`);
    }
    assert.equal(Object.keys(AUDIT_FLAGS).length, Object.keys(AUDIT_OPTIONS).length, 'one flag per option');
    assert.deepEqual(Object.values(AUDIT_OPTIONS).filter((o: OptionSpec) => o.cliOnly).map((o) => o.flag), COMMAND_LINE_ONLY);
  });
});

describe('events', () => {
  const record = { id: 'q1', line: 1, gold: '2', question: 'x', realized: {}, probes: {}, reachable: {}, blind: {} };
  const summary = { n: 1 };
  const events = [
    { type: 'hello', protocol: PROTOCOL_VERSION, version: '0.1.0', engine: 'e', pid: 12 },
    { type: 'started', id: 'a', runDir: '/r', total: 4, done: 1, label: 'base' },
    { type: 'progress', id: 'a', done: 1, total: 4, rate: 0.5, eta: 6, stage: 'routes' },
    { type: 'progress', id: 'a', done: 0, total: 4, rate: 0, eta: null },
    { type: 'progress', id: 'a', done: 2, total: 4, rate: 0.5, eta: 12, tokensPerSecond: 80.5 },
    { type: 'estimate', id: 'a', estimate: { questions: 4, perQuestion: { deployment: 1 }, repairPerScanned: 0, generations: { least: 4, most: 4 }, tokensPerGeneration: { least: 9, most: 9 }, warmUp: { sequences: 16, tokens: 200, seconds: 1, tokensPerSecond: 200 }, seconds: { least: 1, most: 1 } } },
    { type: 'record', id: 'a', record },
    { type: 'record', id: 'a', record, resumed: true },
    { type: 'log', level: 'warning', message: 'line 3 skipped' },
    { type: 'log', id: 'a', level: 'info', message: 'stage times' },
    { type: 'result', id: 'a', request: 'audit', runDir: '/r', summary },
    { type: 'result', id: 'b', request: 'auditQuestion', runDir: '/r', summary, record },
    { type: 'result', id: 'c', request: 'compare', runDir: '/c', comparison: { kind: 'reach-audit-comparison' } },
    { type: 'stopped', id: 'a', runDir: null, done: 0, total: 0 },
    { type: 'error', id: null, message: 'bad line', kind: 'input' },
    { type: 'error', id: 'a', message: 'boom', kind: 'internal' },
  ] as unknown as EngineEvent[];

  test('every event kind survives encode → decode', () => {
    for (const e of events) assert.deepEqual(decodeEvent(encodeLine(e).trimEnd()), { ok: true, value: e });
  });

  test('malformed events are refused, naming the field', () => {
    const bad = (v: unknown, pattern: RegExp) => {
      const d = decodeEvent(JSON.stringify(v));
      assert.equal(d.ok, false, JSON.stringify(v));
      assert.match((d as { message: string }).message, pattern);
    };
    bad({ type: 'progres', id: 'a' }, /type: unknown event/);
    bad({ type: 'progress', id: 'a', done: 1, total: 4, rate: 'fast', eta: null }, /progress\.rate: expected a finite number/);
    bad({ type: 'record', id: 'a', record: null }, /record\.record: expected an object, got null/);
    bad({ type: 'log', level: 'debug', message: 'x' }, /log\.level: expected info, warning or error/);
    bad({ type: 'result', id: 'a', request: 'audit', runDir: '/r' }, /result\.summary: expected an object/);
    bad({ type: 'result', id: 'a', request: 'auditQuestion', runDir: '/r', summary }, /result\.record: expected an object/);
    bad({ type: 'error', id: 'a', message: 'x', kind: 'fatal' }, /error\.kind: expected input or internal/);
    bad({ type: 'started', id: 'a', runDir: '/r', total: 1, done: 0, label: 'other' }, /started\.label: expected base or tuned/);
    assert.equal(decodeEvent('Debugger attached.').ok, false);
  });
});

describe('LineSplitter', () => {
  const text = ['{"type":"log","level":"info","message":"héllo — 数学 🧮"}', '', '{"a":1}', '{"b":"x\\ny"}'].join('\n') + '\n';

  function split(chunks: (Uint8Array | string)[], max?: number): { lines: string[]; overflows: number[] } {
    const lines: string[] = [];
    const overflows: number[] = [];
    const s = new LineSplitter((l) => lines.push(l), max, (n) => overflows.push(n));
    for (const c of chunks) s.push(c);
    s.end();
    return { lines, overflows };
  }

  const expected = ['{"type":"log","level":"info","message":"héllo — 数学 🧮"}', '{"a":1}', '{"b":"x\\ny"}'];

  test('one chunk, one byte at a time, and every two-way cut give the same lines (multi-byte characters included)', () => {
    const bytes = new TextEncoder().encode(text);
    assert.deepEqual(split([bytes]).lines, expected);
    assert.deepEqual(split([...bytes].map((b) => Uint8Array.of(b))).lines, expected);
    for (let cut = 0; cut <= bytes.length; cut++) assert.deepEqual(split([bytes.subarray(0, cut), bytes.subarray(cut)]).lines, expected, `cut at ${cut}`);
  });

  test('the caller may reuse its buffer between pushes', () => {
    const bytes = new TextEncoder().encode('abc\ndef');
    const buf = new Uint8Array(4);
    const lines: string[] = [];
    const s = new LineSplitter((l) => lines.push(l));
    buf.set(bytes.subarray(0, 4));
    s.push(buf.subarray(0, 4)); // "abc\n"
    buf.set(bytes.subarray(4, 7));
    s.push(buf.subarray(0, 3)); // "def"
    buf.fill(0);
    s.end();
    assert.deepEqual(lines, ['abc', 'def']);
  });

  test('CRLF endings and a last line without a newline', () => {
    assert.deepEqual(split(['a\r\nb\r', '\nc']).lines, ['a', 'b', 'c']);
  });

  test('a line over the limit is dropped and reported; the next line is read normally', () => {
    const r = split(['x'.repeat(10), 'y'.repeat(10) + '\nok\n'], 16);
    assert.deepEqual(r.lines, ['ok']);
    assert.deepEqual(r.overflows, [20]);
  });
});
