/**
 * The engine child process on servers, as the extension drives it: the built `dist/cli.js serve`
 * gets a request with `backend: openai` and a `reach-audit serve --http` to run it on, the key in
 * its environment under the variable the request names (src/service/serverKey.ts). It gives the
 * local engine's records byte for byte, with the estimate and progress measured on the server, and
 * writes the key nowhere; without the key the server refuses; with a server that does not announce
 * the layer extensions the route probes are refused before any question runs; a server that does
 * not honour seeds is warned about and recorded — the checks `reach-audit audit --backend openai`
 * makes, from the same code; and two checkpoints are not compared on the servers' one model.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';
import { builtCli, startHttpServe } from '../support/cliRun';
import { EngineError, EngineProcess, type RequestEvent } from '../../src/service/engineClient';
import type { AuditRequestOptions } from '../../src/service/protocol';
import { SERVER_KEY_ENV, serverKeyEnv, withServerKey } from '../../src/service/serverKey';
import type { RunManifest } from '../../src/contract';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-serve-remote-'));
const cache = path.join(root, 'cache');
const model = path.join(root, 'model');
const data = path.join(root, 'gsm8k.jsonl');
const env = { REACH_AUDIT_CACHE: cache, REACH_AUDIT_DEBUG: '' };
const KEY = 'sk-remote-engine-5d1c0f-never-written';

const OPTIONS: AuditRequestOptions = {
  model,
  data,
  probes: ['sample:2', 'routes:2'],
  repair: true,
  maxNewTokens: 6,
  batch: 2,
  threads: 1,
  workspace: root,
};

/** Every file under `folder`, recursively. */
function filesUnder(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(folder, e.name)) : [path.join(folder, e.name)]));
}

function manifestOf(folder: string): RunManifest {
  return JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')) as RunManifest;
}

/**
 * A server in front of `target` that is not ours: /health answers 404 (no layer extensions), and
 * with `ignoreSeed` every completion is asked with a seed of its own (a server that ignores seeds).
 */
async function plainProxy(target: string, ignoreSeed: boolean): Promise<{ url: string; close(): Promise<void> }> {
  const origin = new URL(target).origin;
  let draws = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        if (req.url === '/health') {
          res.writeHead(404).end();
          return;
        }
        let body = Buffer.concat(chunks).toString('utf8');
        if (ignoreSeed && req.method === 'POST' && body !== '') {
          const parsed = JSON.parse(body) as { seed?: number };
          parsed.seed = 1000 + ++draws;
          body = JSON.stringify(parsed);
        }
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (typeof req.headers.authorization === 'string') headers.authorization = req.headers.authorization;
        const answer = await fetch(`${origin}${req.url ?? '/'}`, { method: req.method, headers, ...(req.method === 'POST' ? { body } : {}) });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
      })().catch((err: unknown) => res.writeHead(502).end(String(err)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v1`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function failure(p: Promise<unknown>): Promise<EngineError> {
  const err = await p.then(() => assert.fail('expected the request to fail'), (e: unknown) => e);
  assert.ok(err instanceof EngineError, String(err));
  return err;
}

describe('the engine child on servers (backend openai from a request)', () => {
  let server: { url: string; stop(): void };
  let local: EngineProcess;
  let keyed: EngineProcess;
  let keyless: EngineProcess;
  const stderr: string[] = [];
  const localRun = path.join(root, 'runs', 'local');

  before(async () => {
    assert.ok(fs.existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    writeRandomModel(model, SMALL_SPECS.llama);
    const lines = [];
    for (let i = 0; i < 5; i++) lines.push(JSON.stringify({ id: `r${i}`, question: `What is ${i} + ${i + 1}?`, answer: `#### ${2 * i + 1}` }));
    fs.writeFileSync(data, lines.join('\n') + '\n');
    server = await startHttpServe(['--model', model, '--threads', '1', '--token-env', 'RA_REMOTE_TOKEN'], { ...process.env, ...env, RA_REMOTE_TOKEN: KEY });
    local = new EngineProcess({ cliPath: builtCli, cwd: root, env });
    keyed = new EngineProcess({ cliPath: builtCli, cwd: root, env: { ...env, ...serverKeyEnv(KEY) }, onStderr: (t) => stderr.push(t) });
    keyless = new EngineProcess({ cliPath: builtCli, cwd: root, env });
    const outcome = await local.request({ type: 'audit', options: { ...OPTIONS, out: localRun } }).result;
    assert.equal(outcome.type, 'result');
  });

  after(async () => {
    server?.stop();
    for (const e of [local, keyed, keyless]) await e?.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('the records of the local engine, byte for byte; estimate and progress from the server; the key in no file and no event', async () => {
    const out = path.join(root, 'runs', 'remote');
    const events: RequestEvent[] = [];
    const options = withServerKey({ ...OPTIONS, backend: 'openai', baseUrl: [server.url], out }, true);
    assert.equal(options.apiKeyEnv, SERVER_KEY_ENV);
    const outcome = await keyed.request({ type: 'audit', options }, (e) => events.push(e)).result;
    assert.equal(outcome.type, 'result', JSON.stringify(outcome).slice(0, 300));
    for (const file of ['records.jsonl', 'summary.json', 'failure-set.jsonl']) {
      assert.equal(fs.readFileSync(path.join(out, file), 'utf8'), fs.readFileSync(path.join(localRun, file), 'utf8'), file);
    }
    const backend = manifestOf(out).backend;
    assert.ok(backend, 'the manifest records the servers');
    assert.deepEqual([backend.backend, backend.baseUrls, backend.layerAccess, backend.seedHonoured], ['openai', [server.url], true, true]);
    // The plan and its cost, measured on the server before the first question; then live figures.
    assert.ok(events.some((e) => e.type === 'estimate' && e.estimate.questions === 5 && e.estimate.warmUp.tokensPerSecond > 0), 'an estimate from the server');
    assert.ok(events.some((e) => e.type === 'progress' && e.stage === `connecting to ${server.url}`), 'the connection is the stage before the first question');
    assert.ok(events.some((e) => e.type === 'progress' && (e.tokensPerSecond ?? 0) > 0 && (e.generatedTokens ?? 0) > 0), 'tokens per second measured on the server');
    for (const file of filesUnder(out)) assert.ok(!fs.readFileSync(file, 'utf8').includes(KEY), `${path.relative(out, file)} holds the key`);
    assert.ok(!JSON.stringify(events).includes(KEY), 'no event carries the key');
    assert.ok(!stderr.join('').includes(KEY), 'the engine does not print the key');
  });

  test('without the key the server refuses, and the message names it; a variable that is not set is named', async () => {
    const refused = await failure(keyless.request({ type: 'audit', options: { ...OPTIONS, backend: 'openai', baseUrl: [server.url], out: path.join(root, 'runs', 'no-key') } }).result);
    assert.match(refused.message, /answered 401/);
    // The extension names the variable only when a key is stored; named but unset, the engine says which.
    const unset = await failure(keyless.request({ type: 'audit', options: { ...OPTIONS, backend: 'openai', baseUrl: [server.url], apiKeyEnv: SERVER_KEY_ENV, out: path.join(root, 'runs', 'unset') } }).result);
    assert.equal(unset.kind, 'input');
    assert.match(unset.message, new RegExp(`${SERVER_KEY_ENV} is empty or not set`));
  });

  test('route probes and repair are refused unless every server announces the layer extensions', async () => {
    const plain = await plainProxy(server.url, false);
    try {
      const out = path.join(root, 'runs', 'refused');
      const options = withServerKey({ ...OPTIONS, backend: 'openai', baseUrl: [server.url, plain.url], out }, true);
      const err = await failure(keyed.request({ type: 'audit', options }).result);
      assert.equal(err.kind, 'input');
      assert.match(err.message, /--probe routes:2, --repair(, the global-route selector)? need layer access/);
      assert.ok(err.message.includes(plain.url), err.message);
      assert.ok(!fs.existsSync(path.join(out, 'records.jsonl')), 'no question ran');
    } finally {
      await plain.close();
    }
  });

  test('two checkpoints compared on servers are refused: both would be generated by the one served model', async () => {
    const out = path.join(root, 'runs', 'compared');
    const { model: _m, ...rest } = OPTIONS;
    const options = withServerKey({ ...rest, backend: 'openai', baseUrl: [server.url], baseModel: model, tunedModel: model, out }, true);
    const err = await failure(keyed.request({ type: 'compare', options }).result);
    assert.equal(err.kind, 'input');
    assert.match(err.message, /--base-model\/--tuned-model would audit every checkpoint on the one model the servers serve.*compare --base-run\/--tuned-run/);
    assert.ok(!fs.existsSync(out), 'nothing was written');
  });

  test('a server that does not honour seeds: warned, recorded, and the sample-only audit runs', async () => {
    const plain = await plainProxy(server.url, true);
    try {
      const out = path.join(root, 'runs', 'unseeded');
      const events: RequestEvent[] = [];
      const options = withServerKey({ ...OPTIONS, probes: ['sample:2'], repair: false, select: ['majority', 'confidence'], backend: 'openai', baseUrl: [plain.url], out }, true);
      const outcome = await keyed.request({ type: 'audit', options }, (e) => events.push(e)).result;
      assert.equal(outcome.type, 'result', JSON.stringify(outcome).slice(0, 300));
      assert.ok(events.some((e) => e.type === 'log' && e.level === 'warning' && /does not honour seed/.test(e.message)), 'the warning reaches the extension');
      assert.equal(manifestOf(out).backend?.seedHonoured, false);
      assert.equal(manifestOf(out).backend?.layerAccess, false);
    } finally {
      await plain.close();
    }
  });
});
