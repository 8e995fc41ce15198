/**
 * The engine child process for real: the extension's client (src/service/engineClient.ts)
 * driving the built `dist/cli.js serve` on small random models and a small GSM8K file. Records
 * arrive as events exactly as written to records.jsonl and as `reach-audit audit` writes them; a
 * cancelled run keeps its finished questions and resumes to the uninterrupted result; a child
 * killed with SIGKILL gives the clear message and the next request gets a new child; a
 * per-question audit equals that question's record in the full run; bad request lines get error
 * events and never take the engine down.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';
import { EngineError, EngineProcess, type RequestEvent } from '../../src/service/engineClient';
import { decodeEvent, type AuditRequestOptions, type EngineEvent, type RecordEvent } from '../../src/service/protocol';
import type { QuestionRecord } from '../../src/contract';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-serve-'));
const cache = path.join(root, 'cache');
const baseModel = path.join(root, 'base');
const tunedModel = path.join(root, 'tuned');
const data = path.join(root, 'gsm8k.jsonl');
const env = { REACH_AUDIT_CACHE: cache, REACH_AUDIT_DEBUG: '' };

const OPTIONS: AuditRequestOptions = {
  model: baseModel,
  data,
  probes: ['sample:2', 'routes:2', 'search:2'],
  repair: true,
  maxNewTokens: 4,
  batch: 2,
  threads: 1,
  workspace: root,
};
// The same settings as command-line flags.
const FLAGS = ['--probe', 'sample:2', '--probe', 'routes:2', '--probe', 'search:2', '--repair', '--max-new-tokens', '4', '--batch', '2', '--threads', '1'];

/** The records of `all` for the questions in `kept`, in kept's order (questions finish out of order). */
function sameQuestions<R extends { id: string }>(all: readonly R[], kept: readonly R[]): R[] {
  return kept.map((k) => all.find((r) => r.id === k.id) as R);
}

/** Records in dataset order, as a finished run's records.jsonl holds them. */
function byLine<R extends { line: number }>(records: readonly R[]): R[] {
  return [...records].sort((a, b) => a.line - b.line);
}

function readRecords(folder: string): QuestionRecord[] {
  return fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as QuestionRecord);
}

function readJson(file: string): unknown {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

const records = (events: RequestEvent[], resumed = false) =>
  events.filter((e): e is RecordEvent => e.type === 'record' && (e.resumed === true) === resumed).map((e) => e.record);

async function rejection(p: Promise<unknown>): Promise<EngineError> {
  const err = await p.then(() => assert.fail('expected a rejection'), (e: unknown) => e);
  assert.ok(err instanceof EngineError, String(err));
  return err;
}

describe('reach-audit serve, driven by the extension client', () => {
  const full = path.join(root, 'runs', 'full');
  let engine: EngineProcess;
  const stderr: string[] = [];

  before(() => {
    assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`);
    writeRandomModel(baseModel, SMALL_SPECS.llama);
    writeRandomModel(tunedModel, { ...SMALL_SPECS.llama, seed: 99 });
    const lines = [];
    for (let i = 0; i < 6; i++) lines.push(JSON.stringify({ id: `q${i}`, question: `What is ${i} + ${i}?`, answer: `${i} + ${i} = ${2 * i}\n#### ${2 * i}` }));
    lines.splice(3, 0, '{"question": "no answer field"}'); // line 4: malformed, skipped with a warning
    fs.writeFileSync(data, lines.join('\n') + '\n');
    engine = new EngineProcess({ cliPath: cli, cwd: root, env, onStderr: (t) => stderr.push(t) });
  });

  after(async () => {
    await engine.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('an audit streams each record as written to records.jsonl (and as the CLI writes it), then summary.json', async () => {
    const events: RequestEvent[] = [];
    const handle = engine.request({ type: 'audit', options: { ...OPTIONS, out: full } }, (e) => events.push(e));
    const outcome = await handle.result;
    assert.ok(outcome.type === 'result' && outcome.request === 'audit', JSON.stringify(outcome).slice(0, 300));
    assert.equal(outcome.runDir, full);
    const started = events.find((e) => e.type === 'started');
    assert.deepEqual(started, { type: 'started', id: handle.id, runDir: full, total: 6, done: 0 });
    assert.deepEqual(records(events), readRecords(full), 'the record events are the lines of records.jsonl, in order');
    assert.deepEqual(records(events).map((r) => r.id), ['q0', 'q1', 'q2', 'q3', 'q4', 'q5']);
    assert.deepEqual(outcome.summary, readJson(path.join(full, 'summary.json')));
    const progress = events.filter((e) => e.type === 'progress');
    const last = progress[progress.length - 1];
    assert.ok(last.type === 'progress' && last.done === 6 && last.total === 6 && last.rate > 0 && last.eta === 0);
    assert.ok(events.some((e) => e.type === 'log' && e.level === 'warning' && /gsm8k\.jsonl:4: .*skipped/.test(e.message)), 'the malformed line is reported with its line number');
    assert.equal(stderr.join('').includes('{"type"'), false, 'no protocol on stderr');

    // The same settings through the command line give the same records: the options mean the flags.
    const viaCli = path.join(root, 'runs', 'cli');
    const r = spawnSync(process.execPath, [cli, 'audit', '--model', baseModel, '--data', data, ...FLAGS, '--out', viaCli], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(readRecords(viaCli), readRecords(full));
  });

  test('--kv-memory through the engine process: the need is logged, and the records are those of the run without it', async () => {
    const events: RequestEvent[] = [];
    const budgeted = path.join(root, 'runs', 'kv-memory');
    const outcome = await engine.request({ type: 'audit', options: { ...OPTIONS, out: budgeted, kvMemory: '100K' } }, (e) => events.push(e)).result;
    assert.ok(outcome.type === 'result', JSON.stringify(outcome).slice(0, 300));
    assert.ok(events.some((e) => e.type === 'log' && e.level === 'info' && /^audit: KV memory: up to .* per sequence \(.*\); the 100 KiB budget runs \d+ at once/.test(e.message)), 'the need is stated');
    assert.deepEqual(readRecords(budgeted), readRecords(full));
  });

  test('auditQuestion (by line or by id) equals that question\'s record in the full run', async () => {
    const q4 = readRecords(full).find((r) => r.id === 'q4')!;
    assert.equal(q4.line, 6);
    const byLine = await engine.request({ type: 'auditQuestion', question: { line: 6 }, options: OPTIONS }).result;
    assert.ok(byLine.type === 'result' && byLine.request === 'auditQuestion');
    assert.deepEqual(byLine.record, q4);
    assert.deepEqual(readRecords(byLine.runDir), [q4], 'its run folder holds the record');
    assert.equal(byLine.summary.n, 1);
    const byId = await engine.request({ type: 'auditQuestion', question: { id: 'q4' }, options: OPTIONS }).result;
    assert.ok(byId.type === 'result' && byId.request === 'auditQuestion');
    assert.deepEqual(byId.record, q4);
    assert.notEqual(byId.runDir, byLine.runDir, 'two quick per-question runs get their own folders');

    const err = await rejection(engine.request({ type: 'auditQuestion', question: { line: 4 }, options: OPTIONS }).result);
    assert.equal(err.kind, 'input');
    assert.match(err.message, /gsm8k\.jsonl:4: this line holds no usable question: /);
  });

  test('cancel mid-run keeps the finished questions; resume completes to the uninterrupted result', async () => {
    const stopped = path.join(root, 'runs', 'stopped');
    const handle = engine.request({ type: 'audit', options: { ...OPTIONS, out: stopped } });
    for await (const e of handle.events) if (e.type === 'record') handle.cancel();
    const outcome = await handle.result;
    const kept = readRecords(stopped);
    // The cancel is read at the engine's next step, long before the other questions could finish;
    // records arrive one question at a time, each as soon as it is done.
    assert.ok(outcome.type === 'stopped', `expected stopped, got ${outcome.type}`);
    assert.equal(outcome.runDir, stopped);
    assert.equal(outcome.total, 6);
    assert.equal(outcome.done, kept.length);
    assert.ok(kept.length >= 1 && kept.length < 6, `kept ${kept.length}`);
    assert.deepEqual(kept, sameQuestions(readRecords(full), kept));
    assert.ok(!fs.existsSync(path.join(stopped, 'summary.json')));

    const events: RequestEvent[] = [];
    const resumed = await engine.request({ type: 'audit', options: { ...OPTIONS, out: stopped, resume: true } }, (e) => events.push(e)).result;
    assert.equal(resumed.type, 'result');
    assert.deepEqual(records(events, true), kept, 'the kept questions are sent first, marked resumed');
    assert.deepEqual(byLine([...records(events, true), ...records(events)]), readRecords(full));
    assert.deepEqual(readRecords(stopped), readRecords(full));
    assert.deepEqual(readJson(path.join(stopped, 'summary.json')), readJson(path.join(full, 'summary.json')));
  });

  test('kill -9 of the child mid-run: the request rejects with the clear message, records stay, a new child resumes', async () => {
    const killed = path.join(root, 'runs', 'killed');
    await engine.start();
    const pid = engine.pid!;
    const handle = engine.request({ type: 'audit', options: { ...OPTIONS, out: killed } });
    let sawRecord = false;
    for await (const e of handle.events) {
      if (e.type === 'record' && !sawRecord) {
        sawRecord = true;
        process.kill(pid, 'SIGKILL');
      }
    }
    const err = await rejection(handle.result);
    assert.equal(err.kind, 'crashed');
    assert.equal(err.message, `The Reach Audit engine stopped unexpectedly (signal SIGKILL). Finished questions are kept in ${killed}; run the audit again with resume to continue.`);
    assert.equal(err.runDir, killed);
    const kept = readRecords(killed);
    assert.ok(kept.length >= 1 && kept.length < 6, `kept ${kept.length}`);
    assert.deepEqual(kept, sameQuestions(readRecords(full), kept));
    assert.equal(engine.running, false);

    const resumed = await engine.request({ type: 'audit', options: { ...OPTIONS, out: killed, resume: true } }).result;
    assert.equal(resumed.type, 'result');
    assert.ok(engine.pid !== undefined && engine.pid !== pid, 'a new child');
    assert.deepEqual(readRecords(killed), readRecords(full));
    assert.deepEqual(readJson(path.join(killed, 'summary.json')), readJson(path.join(full, 'summary.json')));
  });

  test('compare audits both checkpoints with the same settings and writes comparison.json', async () => {
    const out = path.join(root, 'comparisons', 'c1');
    const events: RequestEvent[] = [];
    const { model: _unused, ...settings } = OPTIONS; // compare names two models instead
    const outcome = await engine.request({ type: 'compare', options: { ...settings, baseModel, tunedModel, limit: 2, out } }, (e) => events.push(e)).result;
    assert.ok(outcome.type === 'result' && outcome.request === 'compare');
    assert.equal(outcome.runDir, out);
    assert.equal(outcome.comparison.comparison.n, 2);
    assert.deepEqual(readJson(path.join(out, 'comparison.json')), outcome.comparison);
    const labelled = events.filter((e): e is RecordEvent => e.type === 'record').map((e) => `${e.label}:${e.record.id}`);
    // The base run finishes before the tuned one starts; within a run, questions finish in any order.
    assert.deepEqual([...labelled.slice(0, 2)].sort(), ['base:q0', 'base:q1']);
    assert.deepEqual([...labelled.slice(2)].sort(), ['tuned:q0', 'tuned:q1']);
    assert.deepEqual(readRecords(path.join(out, 'base')), readRecords(full).slice(0, 2), 'the base run matches the full run');
  });

  test('when the extension goes away (stdin closes) mid-run, the engine stops after the batch, keeps the records and exits', async () => {
    const orphan = path.join(root, 'runs', 'orphan');
    const child = spawn(process.execPath, [cli, 'serve'], { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    child.stdin.write(JSON.stringify({ type: 'audit', id: 'o', options: { ...OPTIONS, out: orphan } }) + '\n');
    child.stdout.on('data', (d: string) => {
      stdout += d;
      if (stdout.includes('"type":"record"') && child.stdin.writable) child.stdin.end();
    });
    assert.equal(await exited, 0);
    const last = decodeEvent(stdout.trimEnd().split('\n').pop()!);
    assert.ok(last.ok && last.value.type === 'stopped', stdout.slice(-300));
    const kept = readRecords(orphan);
    assert.ok(kept.length >= 1 && kept.length < 6, `kept ${kept.length}`);
    assert.deepEqual(kept, sameQuestions(readRecords(full), kept));
  });

  test('bad request lines get error events naming the problem; the engine keeps serving and exits cleanly', async () => {
    const child = spawn(process.execPath, [cli, 'serve'], { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const lines = [
      'this is not json',
      '[1, 2, 3]',
      JSON.stringify({ type: 'audit', id: 'a', options: { model: 1, data } }),
      JSON.stringify({ type: 'explode', id: 'b' }),
      JSON.stringify({ type: 'auditQuestion', id: 'c', question: { line: 2 } }),
      JSON.stringify({ type: 'audit', id: 'd', options: { ...OPTIONS, format: 'gsm9k' } }),
      JSON.stringify({ type: 'audit', id: 'e', options: { ...OPTIONS, probes: ['sample:0'] } }),
      JSON.stringify({ type: 'cancel', id: 'never-sent' }),
    ];
    // Sent in awkward pieces, as a pipe may deliver them.
    const text = lines.join('\n') + '\n';
    for (let i = 0; i < text.length; i += 13) child.stdin.write(text.slice(i, i + 13));
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (stdout.includes('"id":"e"')) {
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
    child.stdin.write(JSON.stringify({ type: 'shutdown' }) + '\n');
    assert.equal(await exited, 0);
    const events = stdout.trimEnd().split('\n').map((l) => {
      const d = decodeEvent(l);
      assert.ok(d.ok, `every stdout line is a protocol event: ${l}`);
      return d.value;
    });
    assert.equal(events[0].type, 'hello');
    const errors = events.filter((e): e is Extract<EngineEvent, { type: 'error' }> => e.type === 'error');
    assert.deepEqual(errors.map((e) => [e.id, e.kind]), [[null, 'input'], [null, 'input'], ['a', 'input'], ['b', 'input'], ['c', 'input'], ['d', 'input'], ['e', 'input']]);
    assert.match(errors[0].message, /not valid JSON/);
    assert.match(errors[1].message, /expected a JSON object, got an array/);
    assert.match(errors[2].message, /options\.model: expected a string, got number 1/);
    assert.match(errors[3].message, /type: expected one of audit, auditQuestion, compare, cancel, shutdown/);
    assert.match(errors[4].message, /options: expected an object, got nothing/);
    assert.match(errors[5].message, /--format gsm9k: unknown answer format/);
    assert.match(errors[6].message, /--probe sample:0: the budget must be a positive integer/);
    assert.ok(events.some((e) => e.type === 'log' && e.id === 'never-sent'), 'a cancel of an unknown request is only noted');
  });
});
