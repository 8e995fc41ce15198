/**
 * The remote backend against replayed vLLM and llama.cpp response bodies (test/fixtures/openai-servers):
 * what it sends (token-id prompt, seed, stream off, no extension fields to a plain server), how it
 * reads each server's body, retries after 429 with Retry-After, error bodies turned into one line
 * naming the server, and layer probes refused before anything is sent.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { RemoteGenerator, publicUrl, type GenerationRequest } from '../../../src/engine';
import { SMALL_SPECS, writeRandomModel } from '../../support/modelFolder';

const fixtures = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'openai-servers');
const body = (name: string) => fs.readFileSync(path.join(fixtures, name), 'utf8');

interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** A local server that answers each POST with the next scripted reply and keeps what it was sent. */
async function replayServer(replies: Reply[]) {
  const received: { path: string; body: Record<string, unknown>; at: number; auth?: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'served-model', object: 'model', created: 0, owned_by: 'x' }] }));
        return;
      }
      if (req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"not found","type":"not_found"}}');
        return;
      }
      received.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')), at: Date.now(), auth: req.headers.authorization });
      const reply = replies.shift() ?? { status: 500, body: '{"error":{"message":"no more scripted replies"}}' };
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { url, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('remote backend: vLLM and llama.cpp response bodies', () => {
  let modelDir: string;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-remote-'));
  before(() => {
    modelDir = path.join(root, 'model');
    writeRandomModel(modelDir, SMALL_SPECS.llama);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const request: GenerationRequest = { promptIds: [5, 6, 7, 8], maxNewTokens: 6, decoding: { temperature: 0.7, topP: 0.95, seed: 1234 }, stop: ['Question:'] };

  it('reads a vLLM body: text, finish reason, log-probs; sends token ids, seed, stream off', async () => {
    const s = await replayServer([{ status: 200, body: body('vllm-completion.json') }]);
    try {
      const remote = await RemoteGenerator.open({ modelDir, baseUrls: [s.url], checkSeed: false });
      assert.equal(remote.info.apiModel, 'served-model');
      assert.equal(remote.info.layerAccess, false);
      const [g] = await remote.generate([request]);
      assert.equal(g.text, ' 42. The answer is 42');
      assert.equal(g.finishReason, 'length');
      assert.deepEqual(g.logprobs, [-0.3125, -0.0421, -1.25, -0.5, -0.0078, -0.0003]);
      assert.equal(g.cost.generatedTokens, 6, 'usage.completion_tokens');
      assert.equal(g.cost.blockApplications, SMALL_SPECS.llama.numBlocks * (4 + 6));
      const sent = s.received[0];
      assert.equal(sent.path, '/v1/completions');
      assert.deepEqual(sent.body.prompt, [5, 6, 7, 8]);
      assert.equal(sent.body.seed, 1234);
      assert.equal(sent.body.temperature, 0.7);
      assert.equal(sent.body.top_p, 0.95);
      assert.equal(sent.body.max_tokens, 6);
      assert.equal(sent.body.stream, false);
      assert.deepEqual(sent.body.stop, ['Question:']);
      assert.equal('route' in sent.body || 'silenced_mlp' in sent.body, false, 'no extension fields to a plain server');
    } finally {
      await s.close();
    }
  });

  it('reads a llama.cpp body without log-probs or token ids (tokens from the local tokenizer)', async () => {
    const s = await replayServer([{ status: 200, body: body('llamacpp-completion.json') }]);
    try {
      const remote = await RemoteGenerator.open({ modelDir, baseUrls: [s.url], apiModel: 'any', checkSeed: false });
      const [g] = await remote.generate([request]);
      assert.equal(g.text, ' 7 apples');
      assert.equal(g.finishReason, 'stop');
      assert.deepEqual(g.logprobs, []);
      assert.ok(g.tokens.length > 0, 'the text is tokenized locally');
      assert.equal(g.cost.generatedTokens, 3);
    } finally {
      await s.close();
    }
  });

  it('waits out a 429 with Retry-After, then succeeds', async () => {
    const s = await replayServer([
      { status: 429, body: '{"error":{"message":"rate limited","type":"rate_limit_error"}}', headers: { 'retry-after': '1' } },
      { status: 200, body: body('vllm-completion.json') },
    ]);
    try {
      const remote = await RemoteGenerator.open({ modelDir, baseUrls: [s.url], apiModel: 'm', checkSeed: false });
      const [g] = await remote.generate([request]);
      assert.equal(g.text, ' 42. The answer is 42');
      assert.equal(s.received.length, 2);
      assert.ok(s.received[1].at - s.received[0].at >= 900, `retried after ${s.received[1].at - s.received[0].at} ms`);
    } finally {
      await s.close();
    }
  });

  for (const [name, file, expected] of [
    ['vLLM', 'vllm-error.json', /maximum context length is 32768/],
    ['llama.cpp', 'llamacpp-error.json', /exceeds the available context size/],
  ] as const) {
    it(`turns a ${name} error body into one line naming the server`, async () => {
      const s = await replayServer([{ status: 400, body: body(file) }]);
      try {
        const remote = await RemoteGenerator.open({ modelDir, baseUrls: [s.url], apiModel: 'm', checkSeed: false });
        await assert.rejects(remote.generate([request]), (err: Error) => {
          assert.match(err.message, expected);
          assert.ok(err.message.startsWith(s.url), err.message);
          assert.match(err.message, /answered 400/);
          return true;
        });
        assert.equal(s.received.length, 1, 'a 400 is not retried');
      } finally {
        await s.close();
      }
    });
  }

  it('refuses route and silenced-MLP requests to a server without layer access, sending nothing', async () => {
    const s = await replayServer([]);
    try {
      const remote = await RemoteGenerator.open({ modelDir, baseUrls: [s.url], apiModel: 'm', checkSeed: false });
      await assert.rejects(remote.generate([{ ...request, route: [0, 1, 1, 3] }]), /need layer access/);
      await assert.rejects(remote.generate([{ ...request, silencedMlp: [1] }]), /need layer access/);
      assert.equal(s.received.length, 0);
      // The identity route written out is no layer request.
      s.received.length = 0;
    } finally {
      await s.close();
    }
  });

  it('says when a server does not honour seeds', async () => {
    const s = await replayServer([
      { status: 200, body: body('vllm-completion.json') },
      { status: 200, body: body('llamacpp-completion.json') },
    ]);
    try {
      const remote = await RemoteGenerator.open({ modelDir, baseUrls: [s.url], apiModel: 'm' });
      assert.equal(remote.info.seedHonoured, false);
    } finally {
      await s.close();
    }
  });

  it('keeps secrets out of what it records', async () => {
    assert.equal(publicUrl('http://user:pa55@example.test:8000/v1?api_key=zzz#frag'), 'http://example.test:8000/v1');
    const s = await replayServer([{ status: 200, body: body('vllm-completion.json') }]);
    try {
      const remote = await RemoteGenerator.open({ modelDir, baseUrls: [s.url], apiModel: 'm', apiKey: 'sk-very-secret', checkSeed: false });
      await remote.generate([request]);
      assert.equal(s.received[0].auth, 'Bearer sk-very-secret');
      assert.ok(!JSON.stringify(remote.info).includes('sk-very-secret'));
    } finally {
      await s.close();
    }
  });

  it('names an unreachable server', async () => {
    await assert.rejects(
      RemoteGenerator.open({ modelDir, baseUrls: ['http://127.0.0.1:9/v1'], maxRetries: 0, checkSeed: false }),
      /127\.0\.0\.1:9\/v1: cannot reach the server/,
    );
  });
});
