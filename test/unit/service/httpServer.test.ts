/**
 * `serve --http` and the remote backend together: generations through two local HTTP servers equal
 * the in-process engine's (greedy, seeded samples, routes, silenced MLPs, stop strings), requests
 * are spread over the servers, and bad or oversized requests get a 4xx naming the field.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RemoteGenerator, type GenerationRequest } from '../../../src/engine';
import { startHttpServer, type RunningHttpServer } from '../../../src/service/httpServer';
import { SMALL_SPECS } from '../../support/modelFolder';
import { fixture, promptIds, type Fixture } from '../engine/engineTestModels';

describe('serve --http with the remote backend', () => {
  let f: Fixture;
  let servers: RunningHttpServer[] = [];
  before(async () => {
    f = await fixture('http-llama', SMALL_SPECS.llama);
    servers = [
      await startHttpServer({ model: f.model, modelName: 'test-llama', host: '127.0.0.1', port: 0 }),
      await startHttpServer({ model: f.model, modelName: 'test-llama', host: '127.0.0.1', port: 0 }),
    ];
  });
  after(async () => {
    for (const s of servers) await s.close();
  });

  const V = SMALL_SPECS.llama.vocabSize;
  // Equal prompt lengths: the engine is then bit for bit independent of how requests are batched.
  const requests = (): GenerationRequest[] => [
    { promptIds: promptIds(7, 1, V), maxNewTokens: 9, decoding: { temperature: 0, topP: 1, seed: 1 } },
    { promptIds: promptIds(7, 2, V), maxNewTokens: 9, decoding: { temperature: 0.8, topP: 0.9, seed: 77 } },
    { promptIds: promptIds(7, 3, V), maxNewTokens: 9, decoding: { temperature: 0, topP: 1, seed: 2 }, route: [0, 1, 1, 3] },
    { promptIds: promptIds(7, 4, V), maxNewTokens: 9, decoding: { temperature: 0, topP: 1, seed: 3 }, silencedMlp: [2] },
    { promptIds: promptIds(7, 5, V), maxNewTokens: 9, decoding: { temperature: 1, topP: 1, seed: 5 }, route: [0, 2, 3], silencedMlp: [0] },
    { promptIds: promptIds(7, 6, V), maxNewTokens: 9, decoding: { temperature: 1, topP: 1, seed: 9 } },
  ];

  it('gives exactly the in-process generations, over two servers round-robin', async () => {
    const remote = await RemoteGenerator.open({ modelDir: f.written.dir, baseUrls: servers.map((s) => s.url), concurrency: 2 });
    assert.equal(remote.info.layerAccess, true);
    assert.equal(remote.info.seedHonoured, true);
    assert.equal(remote.info.apiModel, 'test-llama');
    const before0 = servers.map((s) => s.served());
    const local = await f.model.generate(requests());
    const got = await remote.generate(requests());
    assert.deepEqual(got.map((g) => g.tokens), local.map((g) => g.tokens));
    assert.deepEqual(got.map((g) => g.text), local.map((g) => g.text));
    assert.deepEqual(got.map((g) => g.logprobs), local.map((g) => g.logprobs));
    assert.deepEqual(got.map((g) => g.finishReason), local.map((g) => g.finishReason));
    assert.deepEqual(got.map((g) => g.cost), local.map((g) => g.cost));
    servers.forEach((s, i) => assert.ok(s.served() > before0[i], `server ${i} served nothing`));
  });

  it('cuts at stop strings as the engine does', async () => {
    const remote = await RemoteGenerator.open({ modelDir: f.written.dir, baseUrls: [servers[0].url], checkSeed: false });
    const probe = (await f.model.generate([{ promptIds: promptIds(5, 9, V), maxNewTokens: 12, decoding: { temperature: 0, topP: 1, seed: 0 } }]))[0];
    const stop = probe.text.slice(3, 5);
    assert.ok(stop.length > 0, 'the fixture generates text');
    const req: GenerationRequest = { promptIds: promptIds(5, 9, V), maxNewTokens: 12, decoding: { temperature: 0, topP: 1, seed: 0 }, stop: [stop] };
    const [local] = await f.model.generate([req]);
    const [got] = await remote.generate([req]);
    assert.equal(got.text, local.text);
    assert.equal(got.finishReason, 'stop');
  });

  it('names the field of a bad request and bounds sizes', async () => {
    const post = (body: unknown) => fetch(`${servers[0].url}/completions`, { method: 'POST', body: JSON.stringify(body) });
    const cases: [unknown, number, RegExp][] = [
      [{ prompt: [1, 2], max_tokens: 4, route: [0, 9] }, 400, /route/],
      [{ prompt: [1, 2], max_tokens: 4, silenced_mlp: [-1] }, 400, /silenced_mlp/],
      [{ prompt: [1, 2], max_tokens: 0 }, 400, /max_tokens: expected 1 to/],
      [{ prompt: [1, 2], max_tokens: 4, n: 3 }, 400, /^n: only 1/],
      [{ prompt: [1, 2], max_tokens: 4, stream: true }, 400, /stream/],
      [{ prompt: [1, V + 5], max_tokens: 4 }, 400, /prompt/],
      [{ prompt: 'x'.repeat(10), max_tokens: 100_000 }, 400, /max_tokens/],
      [{ prompt: [1, 2], max_tokens: 4, temperature: 'hot' }, 400, /temperature: expected a number/],
      ['not an object', 400, /JSON object/],
    ];
    for (const [body, status, message] of cases) {
      const r = await post(body);
      const json = (await r.json()) as { error: { message: string } };
      assert.equal(r.status, status, JSON.stringify(body));
      assert.match(json.error.message, message);
    }
    const big = await fetch(`${servers[0].url}/completions`, { method: 'POST', body: 'x'.repeat(5 * 1024 * 1024) });
    assert.equal(big.status, 413);
    const lost = await fetch(`${servers[0].url}/nowhere`);
    assert.equal(lost.status, 404);
  });

  it('prompt plus max_tokens over the context is refused', async () => {
    const r = await fetch(`${servers[0].url}/completions`, { method: 'POST', body: JSON.stringify({ prompt: [1, 2, 3], max_tokens: 8190 }) });
    const json = (await r.json()) as { error: { message: string } };
    assert.equal(r.status, 400);
    assert.match(json.error.message, /over the model's context/);
  });

  it('requires the bearer token when one is set, and the client sends it', async () => {
    const guarded = await startHttpServer({ model: f.model, modelName: 'guarded', host: '127.0.0.1', port: 0, token: 's3cret-token' });
    try {
      const anonymous = await fetch(`${guarded.url}/models`);
      assert.equal(anonymous.status, 401);
      const health = await fetch(guarded.url.replace(/\/v1$/, '/health'));
      assert.equal(health.status, 200, 'health needs no token');
      await assert.rejects(RemoteGenerator.open({ modelDir: f.written.dir, baseUrls: [guarded.url], checkSeed: false, maxRetries: 0 }), /answered 401/);
      const remote = await RemoteGenerator.open({ modelDir: f.written.dir, baseUrls: [guarded.url], apiKey: 's3cret-token', checkSeed: false });
      const [g] = await remote.generate([requests()[0]]);
      assert.equal(g.tokens.length > 0, true);
      assert.ok(!JSON.stringify(remote.info).includes('s3cret'), 'the backend info carries no secret');
    } finally {
      await guarded.close();
    }
  });
});
