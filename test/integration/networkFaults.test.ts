/**
 * Nothing is lost to a network fault (issue 29): `audit --backend openai` runs through a loopback
 * proxy in front of a real `serve --http`; after a few good answers the proxy turns hostile (a
 * 50 MB body, Retry-After: 3600, headers then a trickle, no answer at all). Each time the audit
 * stops in bounded time with one line naming the server and the fault, no stack trace, the finished
 * questions kept and the resume command given; resuming through the healed proxy ends byte for
 * byte in the run the local engine gives.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtCli, runCli, runCliAsync, startHttpServe } from '../support/cliRun';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-faults-'));
const model = path.join(root, 'model');
const data = path.join(root, 'gsm8k.jsonl');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
// --batch 1: one question at a time, so the good answers finish whole questions before the fault.
const FLAGS = ['--probe', 'sample:2', '--select', 'majority,confidence', '--max-new-tokens', '4', '--batch', '1', '--threads', '1'];

type Fault = 'pass' | 'huge' | 'retry-after' | 'trickle' | 'silent';

/** Forwards to `target`; once `turn()` says so, POSTs get `fault` instead. */
async function faultyProxy(target: string) {
  const state = { fault: 'pass' as Fault, turn: () => false };
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const isPost = req.method === 'POST';
      if (isPost && state.fault !== 'pass' && state.turn()) return misbehave(state.fault, res);
      const upstream = http.request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  function misbehave(fault: Fault, res: http.ServerResponse): void {
    if (fault === 'retry-after') {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '3600' });
      res.end('{"error":{"message":"come back in an hour"}}');
    } else if (fault === 'huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices":[{"index":0,"text":"');
      const piece = 'x'.repeat(1 << 20);
      let sent = 0;
      const more = () => {
        while (sent < 50 && !res.destroyed && res.write(piece)) sent++;
        if (sent >= 50 || res.destroyed) res.end('"}]}');
        else res.once('drain', () => (sent++, more()));
      };
      more();
    } else if (fault === 'trickle') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const t = setInterval(() => res.write(' '), 100);
      timers.add(t);
      res.on('close', () => (clearInterval(t), timers.delete(t)));
    }
    // silent: never answers
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    state,
    close: () =>
      new Promise<void>((r) => {
        timers.forEach(clearInterval);
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

function startServer(): Promise<{ url: string; stop(): void }> {
  return startHttpServe(['--model', model, '--threads', '1'], env);
}

const lines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

describe('network faults mid-audit keep the finished questions, and resume completes the run', { timeout: 120_000 }, () => {
  const local = path.join(root, 'local');
  let server: { url: string; stop(): void };
  let proxy: Awaited<ReturnType<typeof faultyProxy>>;

  before(async () => {
    assert.ok(fs.existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    writeRandomModel(model, SMALL_SPECS.llama);
    const qs = [];
    for (let i = 0; i < 5; i++) qs.push(JSON.stringify({ id: `q${i}`, question: `What is ${i} + ${i}?`, answer: `#### ${2 * i}` }));
    fs.writeFileSync(data, qs.join('\n') + '\n');
    const r = runCli(['audit', '--model', model, '--data', data, ...FLAGS, '--out', local], { cwd: root, env });
    assert.equal(r.code, 0, r.stderr);
    server = await startServer();
    proxy = await faultyProxy(server.url.replace(/\/v1$/, ''));
  });
  after(async () => {
    await proxy?.close();
    server?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const cases: [Fault, string[], RegExp][] = [
    ['huge', [], /: the response body is over 16777216 bytes; stopped reading\./],
    ['retry-after', [], /: the server answered 429: .*come back in an hour; it asks to retry after 3600 s, more than the 60 s this client waits\./],
    ['trickle', ['--timeout', '1', '--max-retries', '1'], /: the server did not answer in time; gave up after 1 retry \(--max-retries\)\./],
    ['silent', ['--timeout', '1', '--max-retries', '0'], /: the server did not answer in time\./],
  ];
  for (const [fault, flags, message] of cases) {
    it(`${fault}: stops naming the server, keeps what finished, resumes to the local run`, async (t) => {
      const out = path.join(root, `run-${fault}`);
      // Hostile once two questions are recorded (--batch 1: the third has not started yet).
      Object.assign(proxy.state, { fault, turn: () => lines(path.join(out, 'records.jsonl')).length >= 2 });
      const started = Date.now();
      const args = ['audit', '--model', model, '--data', data, ...FLAGS, '--backend', 'openai', '--base-url', proxy.url, ...flags, '--out', out];
      const r = await runCliAsync(args, { cwd: root, env });
      const ms = Date.now() - started;
      t.diagnostic(`${fault}: stopped after ${ms} ms`);
      assert.notEqual(r.code, 0);
      assert.ok(ms < 30_000, `took ${ms} ms`);
      assert.match(r.stderr, message);
      assert.ok(r.stderr.includes(proxy.url), r.stderr);
      assert.match(r.stderr, /2 finished questions are kept in .*records\.jsonl; continue with: .*--resume/);
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(lines(path.join(out, 'records.jsonl')).length, 2);

      proxy.state.fault = 'pass';
      // Not spawnSync: the proxy answers from this process's event loop.
      const resumed = await runCliAsync([...args, '--resume'], { cwd: root, env });
      assert.equal(resumed.code, 0, resumed.stderr);
      for (const file of ['records.jsonl', 'summary.json']) {
        assert.equal(fs.readFileSync(path.join(out, file), 'utf8'), fs.readFileSync(path.join(local, file), 'utf8'), file);
      }
    });
  }
});
