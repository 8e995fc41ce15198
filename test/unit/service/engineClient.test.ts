/**
 * The engine client against a scripted stand-in engine (a small Node program speaking the protocol),
 * so child death, cancel, stray output and protocol mismatches can be staged exactly and quickly.
 * test/integration/serve.test.ts runs the same client against the real `reach-audit serve`.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EngineError, EngineProcess, StderrTail, crashMessage, type EngineExit, type RequestEvent } from '../../../src/service/engineClient';
import { PROTOCOL_VERSION, type LogEvent } from '../../../src/service/protocol';

// The stand-in engine: behaviour is picked by the request's `options.model`.
const FAKE_ENGINE = String.raw`
const send = (e) => process.stdout.write(JSON.stringify(e) + '\n');
send({ type: 'hello', protocol: Number(process.env.FAKE_PROTOCOL || ${PROTOCOL_VERSION}), version: '0', engine: 'fake', pid: process.pid });
const waiting = new Map();
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    handle(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));
const record = (id) => ({ id, line: 1, gold: '2', question: 'q', realized: {}, probes: {}, reachable: {}, blind: {} });
function handle(r) {
  if (r.type === 'shutdown') {
    for (const [id, runDir] of waiting) send({ type: 'stopped', id, runDir, done: 1, total: 3 });
    process.exit(0);
  }
  if (r.type === 'cancel') {
    if (waiting.get(r.id) === 'stubborn') return;
    if (waiting.has(r.id)) send({ type: 'stopped', id: r.id, runDir: waiting.get(r.id), done: 1, total: 3 });
    waiting.delete(r.id);
    return;
  }
  const id = r.id;
  const runDir = '/tmp/runs/' + id;
  switch (r.options.model) {
    case 'ok': {
      // Everything in one write, cut at odd places by the pipe, with a stray non-protocol line.
      const text = [
        { type: 'started', id, runDir, total: 2, done: 0 },
        { type: 'progress', id, done: 0, total: 2, rate: 0, eta: null, stage: 'deployment' },
        { type: 'record', id, record: record('a') },
        { type: 'log', id, level: 'info', message: 'halfway' },
        { type: 'record', id, record: record('b') },
      ].map((e) => JSON.stringify(e)).join('\n') + '\nDebugger attached.\n';
      let at = 0;
      const step = () => {
        if (at < text.length) {
          process.stdout.write(text.slice(at, at + 7));
          at += 7;
          setImmediate(step);
        } else send({ type: 'result', id, request: 'audit', runDir, summary: { n: 2, electron: process.env.ELECTRON_RUN_AS_NODE, allocator: [process.env.MALLOC_MMAP_MAX_, process.env.MALLOC_TRIM_THRESHOLD_, process.env.GLIBC_TUNABLES], question: r.question || null } });
      };
      step();
      return;
    }
    case 'crash':
      send({ type: 'started', id, runDir, total: 3, done: 0 });
      send({ type: 'record', id, record: record('a') });
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), 20);
      return;
    case 'exit':
      process.stderr.write('reach-audit: warning: something\nreach-audit: the runtime failed to initialise\n');
      setTimeout(() => process.exit(3), 20);
      return;
    case 'oom':
      process.stderr.write('FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n');
      send({ type: 'started', id, runDir, total: 3, done: 0 });
      setTimeout(() => process.exit(134), 20);
      return;
    case 'slow':
      waiting.set(id, runDir);
      send({ type: 'started', id, runDir, total: 3, done: 0 });
      send({ type: 'progress', id, done: 1, total: 3, rate: 1, eta: 2 });
      return;
    case 'stubborn':
      waiting.set(id, 'stubborn');
      send({ type: 'started', id, runDir, total: 3, done: 0 });
      send({ type: 'progress', id, done: 1, total: 3, rate: 1, eta: 2 });
      return;
    case 'bad':
      send({ type: 'error', id, message: '--format gsm9k: unknown answer format', kind: 'input' });
      return;
  }
}
`;

let dir: string;
let cliPath: string;
const clients: EngineProcess[] = [];

function client(extra: Partial<ConstructorParameters<typeof EngineProcess>[0]> = {}): EngineProcess {
  const c = new EngineProcess({ cliPath, ...extra });
  clients.push(c);
  return c;
}

const audit = (model: string) => ({ type: 'audit' as const, options: { model, data: '/d.jsonl' } });

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-engine-process-'));
  cliPath = path.join(dir, 'fake-engine.js');
  fs.writeFileSync(cliPath, FAKE_ENGINE);
});

after(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('EngineProcess', () => {
  test('a request gets its events in order (callback and async iteration) and its result; stray stdout is only logged', async () => {
    const logs: LogEvent[] = [];
    const engine = client({ onLog: (l) => logs.push(l) });
    const seen: RequestEvent[] = [];
    const handle = engine.request(audit('ok'), (e) => seen.push(e));
    const iterated: string[] = [];
    for await (const e of handle.events) iterated.push(e.type);
    const outcome = await handle.result;
    assert.equal(outcome.type, 'result');
    assert.equal(outcome.runDir, '/tmp/runs/' + handle.id);
    assert.deepEqual(seen.map((e) => e.type), ['started', 'progress', 'record', 'log', 'record']);
    assert.deepEqual(iterated, seen.map((e) => e.type));
    assert.deepEqual(seen.filter((e) => e.type === 'record').map((e) => (e.type === 'record' ? e.record.id : '')), ['a', 'b']);
    assert.equal(handle.runDir, '/tmp/runs/' + handle.id);
    assert.ok(outcome.type === 'result' && outcome.request === 'audit');
    assert.equal((outcome.summary as unknown as { electron: string }).electron, '1', 'ELECTRON_RUN_AS_NODE=1 reaches the child');
    assert.ok(logs.some((l) => l.level === 'warning' && /not valid JSON/.test(l.message)), 'the stray line is reported');
    assert.ok(logs.some((l) => l.message === 'halfway'), 'request logs reach onLog too');
    const pid = engine.pid;
    const throwing = engine.request(audit('ok'), () => {
      throw new Error('handler bug');
    });
    assert.equal((await throwing.result).type, 'result', 'a failing event handler does not break the request');
    assert.ok(logs.some((l) => l.level === 'error' && /event handler failed: handler bug/.test(l.message)));
    assert.equal(engine.pid, pid, 'one child serves many requests');
  });

  test("the child starts with the engine's allocator settings, and a variable the user set wins", async () => {
    const allocatorOf = async (engine: EngineProcess): Promise<unknown> => {
      const outcome = await engine.request(audit('ok')).result;
      return outcome.type === 'result' ? (outcome.summary as unknown as { allocator: unknown }).allocator : outcome.type;
    };
    const names = ['MALLOC_MMAP_MAX_', 'MALLOC_TRIM_THRESHOLD_', 'GLIBC_TUNABLES'];
    const saved = names.map((n) => process.env[n]);
    for (const n of names) delete process.env[n];
    const trim = String(64 * 2 ** 30);
    try {
      assert.deepEqual(await allocatorOf(client()), ['0', trim, 'glibc.malloc.hugetlb=1']);
      process.env.GLIBC_TUNABLES = 'glibc.malloc.hugetlb=0';
      assert.deepEqual(await allocatorOf(client()), ['0', trim, 'glibc.malloc.hugetlb=0'], "the user's own tunables replace the engine's");
      assert.deepEqual(await allocatorOf(client({ env: { MALLOC_MMAP_MAX_: '65536' } })), ['65536', trim, 'glibc.malloc.hugetlb=0'], 'so does a value the caller passes');
    } finally {
      names.forEach((n, i) => {
        if (saved[i] === undefined) delete process.env[n];
        else process.env[n] = saved[i];
      });
    }
  });

  test('the child killed under a request: a clear message naming the run folder, and the next request starts a new child', async () => {
    const exits: EngineExit[] = [];
    const engine = client({ onExit: (e) => exits.push(e) });
    await engine.start();
    const first = engine.pid;
    const handle = engine.request(audit('crash'));
    const err = await handle.result.then(() => assert.fail('expected a rejection'), (e: unknown) => e);
    assert.ok(err instanceof EngineError);
    assert.equal(err.kind, 'crashed');
    assert.equal(
      err.message,
      `The Reach Audit engine stopped unexpectedly (signal SIGKILL). Finished questions are kept in /tmp/runs/${handle.id}; run the audit again with resume to continue.`,
    );
    assert.equal(err.runDir, `/tmp/runs/${handle.id}`);
    assert.deepEqual(exits.map((e) => [e.signal, e.expected]), [['SIGKILL', false]]);
    assert.equal(engine.running, false);
    const next = engine.request(audit('ok'));
    assert.equal((await next.result).type, 'result');
    assert.ok(engine.pid !== undefined && engine.pid !== first, 'a new child');
  });

  test('an exit before any run folder says so, with the engine\'s last stderr line', async () => {
    const err = await client().request(audit('exit')).result.then(() => assert.fail('expected a rejection'), (e: unknown) => e as EngineError);
    assert.equal(err.message, 'The Reach Audit engine stopped unexpectedly (exit code 3). No run folder had been opened yet; nothing was lost. Last engine message: reach-audit: the runtime failed to initialise');
    assert.match(err.stderrTail ?? '', /warning: something/);
  });

  test('running out of memory is named', async () => {
    const err = await client().request(audit('oom')).result.then(() => assert.fail('expected a rejection'), (e: unknown) => e as EngineError);
    assert.match(err.message, /^The Reach Audit engine stopped unexpectedly \(exit code 134\)\. It ran out of memory; .* Finished questions are kept in \/tmp\/runs\/r1; run the audit again with resume to continue\.$/);
  });

  test('cancel: the engine stops the request, which resolves `stopped` with its run folder; the child lives on', async () => {
    const engine = client();
    const handle = engine.request(audit('slow'));
    for await (const e of handle.events) if (e.type === 'progress') handle.cancel();
    const outcome = await handle.result;
    assert.deepEqual(outcome, { type: 'stopped', id: handle.id, runDir: `/tmp/runs/${handle.id}`, done: 1, total: 3 });
    assert.equal(engine.running, true);
  });

  test('cancel that the engine does not honour in time kills the child; the request still resolves `stopped`', async () => {
    const exits: EngineExit[] = [];
    const engine = client({ cancelGraceMs: 200, onExit: (e) => exits.push(e) });
    const handle = engine.request(audit('stubborn'));
    for await (const e of handle.events) if (e.type === 'progress') handle.cancel();
    const outcome = await handle.result;
    assert.deepEqual(outcome, { type: 'stopped', id: handle.id, runDir: `/tmp/runs/${handle.id}`, done: 1, total: 3 });
    assert.deepEqual(exits.map((e) => [e.signal, e.expected]), [['SIGKILL', true]]);
    assert.equal((await engine.request(audit('ok')).result).type, 'result', 'the next request gets a new child');
  });

  test('an input error rejects with kind `input` and the engine\'s message; the child keeps serving', async () => {
    const engine = client();
    await engine.start();
    const pid = engine.pid;
    const err = await engine.request(audit('bad')).result.then(() => assert.fail('expected a rejection'), (e: unknown) => e as EngineError);
    assert.equal(err.kind, 'input');
    assert.equal(err.message, '--format gsm9k: unknown answer format');
    assert.equal(engine.pid, pid);
  });

  test('an engine speaking another protocol version is refused with a message saying so', async () => {
    const engine = client({ env: { FAKE_PROTOCOL: '99' } });
    await assert.rejects(engine.start(), new RegExp(`speaks protocol version 99, but the extension expects ${PROTOCOL_VERSION}; rebuild or reinstall`));
  });

  test('dispose stops the child; running requests end `stopped`; no more requests are taken; its exit is an expected one', async () => {
    const exits: EngineExit[] = [];
    const engine = client({ onExit: (e) => exits.push(e) });
    const handle = engine.request(audit('slow'));
    for await (const e of handle.events) if (e.type === 'progress') break;
    await engine.dispose();
    assert.equal((await handle.result).type, 'stopped');
    assert.equal(engine.running, false);
    // The extension replaces an idle engine this way (a new server key): no "exited unexpectedly" in its log.
    assert.deepEqual(exits.map((e) => [e.code, e.expected]), [[0, true]]);
    assert.throws(() => engine.request(audit('ok')), /disposed/);
  });

  test('a binary that cannot be started gives a clear rejection, not a hang', async () => {
    const engine = client({ execPath: path.join(dir, 'no-such-node') });
    const err = await engine.request(audit('ok')).result.then(() => assert.fail('expected a rejection'), (e: unknown) => e as EngineError);
    assert.match(err.message, /^The Reach Audit engine stopped unexpectedly \(.*\)\. No run folder had been opened yet; nothing was lost\. Last engine message: could not start .*no-such-node.*ENOENT/);
  });
});

describe('StderrTail and crashMessage', () => {
  test('the tail keeps only the last characters, however much is written', () => {
    const tail = new StderrTail(100);
    for (let i = 0; i < 10_000; i++) tail.push(`line ${i}\n`);
    const text = tail.toString();
    assert.equal(text.length, 100);
    assert.ok(text.endsWith('line 9999\n'));
    assert.equal(tail.lastLine(), 'line 9999');
  });

  test('messages for a signal, an exit code and no run folder', () => {
    const empty = new StderrTail();
    assert.equal(crashMessage(null, 'SIGSEGV', '/r', empty), 'The Reach Audit engine stopped unexpectedly (signal SIGSEGV). Finished questions are kept in /r; run the audit again with resume to continue.');
    assert.equal(crashMessage(1, null, undefined, empty), 'The Reach Audit engine stopped unexpectedly (exit code 1). No run folder had been opened yet; nothing was lost.');
  });
});
