/**
 * `serve --http` and the remote backend together: generations through two local HTTP servers equal
 * the in-process engine's (greedy, seeded samples, routes, silenced MLPs, stop strings), requests
 * are spread over the servers, and bad or oversized requests get a 4xx naming the field. Issue 29:
 * routes, prompt text and bodies of any encoding are bounded before any work (a 100,000-entry route,
 * a 3.9 MB prompt, a chunked or falsely declared huge body), values are quoted without serializing
 * them (deep nesting, 1e999), /health shows the model only with the token, and listening beyond
 * loopback without a token is refused.
 */

/** POSTs `body` by hand (node:http, so the body can be chunked or endless); the status, or the error. */
function rawPost(url: string, send: (req: http.ClientRequest) => void, headers: Record<string, string | number> = {}): Promise<{ status?: number; body: string; error?: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const req = http.request(`${url}/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body, ms: Date.now() - started }));
      res.on('error', (e) => resolve({ status: res.statusCode, body, error: e.message, ms: Date.now() - started }));
    });
    req.on('error', (e) => resolve({ body: '', error: e.message, ms: Date.now() - started }));
    send(req);
  });
}
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { RemoteGenerator, type GenerationRequest } from '../../../src/engine';
import { isLoopback, startHttpServer, type RunningHttpServer } from '../../../src/service/httpServer';
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

  it("continues a generation from the server's kept state, with the in-process numbers (the continues extension)", async () => {
    const remote = await RemoteGenerator.open({ modelDir: f.written.dir, baseUrls: [servers[0].url], checkSeed: false });
    const prompt = promptIds(7, 21, V);
    const [dep] = await remote.generate([{ promptIds: prompt, maxNewTokens: 9, decoding: { temperature: 0, topP: 1, seed: 0 }, keepState: true }]);
    assert.ok(dep.tokens.length >= 4, 'the fixture generates tokens to fork inside');
    const branch: GenerationRequest = {
      promptIds: [...prompt, ...dep.tokens.slice(0, 3), (dep.tokens[3] + 1) % (V - 8)],
      maxNewTokens: 5,
      decoding: { temperature: 1, topP: 1, seed: 4 },
      continues: { promptTokens: prompt.length, generatedTokens: 3 },
    };
    const hits = f.model.keptStates.hits;
    const [got] = await remote.generate([branch]);
    assert.equal(f.model.keptStates.hits, hits + 1, "the server started the branch from the deployed generation's state");
    const [local] = await f.model.generate([branch]);
    assert.deepEqual({ ...got, text: got.text }, local);
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
      [{ prompt: [1, 2], max_tokens: 4, temperature: 'hot' }, 400, /temperature: expected a finite number/],
      [{ prompt: [1, 2, 3], max_tokens: 4, continues: { prompt_tokens: 'a', generated_tokens: 0 } }, 400, /^continues: expected an object \{prompt_tokens, generated_tokens\}/],
      [{ prompt: [1, 2], max_tokens: 4, continues: { prompt_tokens: 2, generated_tokens: 0 } }, 400, /continues: .* at least one of the 2 prompt ids to add/],
      [{ prompt: [1, 2], max_tokens: 4, keep_state: 'yes' }, 400, /^keep_state: expected true or false/],
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

  it('bounds a route at twice the blocks before reading its values (defect 2)', async (t) => {
    const started = Date.now();
    const route = Array.from({ length: 100_000 }, (_, i) => i % 4);
    const r = await fetch(`${servers[0].url}/completions`, { method: 'POST', body: JSON.stringify({ prompt: [1, 2], max_tokens: 4, route }) });
    const json = (await r.json()) as { error: { message: string; param: string } };
    assert.equal(r.status, 400);
    assert.equal(json.error.message, 'route: holds 100000 block indices; at most 8 (each of the 4 blocks at most twice)');
    assert.equal(json.error.param, 'route');
    assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
    t.diagnostic(`100,000-entry route refused in ${Date.now() - started} ms`);
    const ok = await fetch(`${servers[0].url}/completions`, { method: 'POST', body: JSON.stringify({ prompt: [1, 2], max_tokens: 2, route: [0, 0, 1, 1, 2, 2, 3, 3] }) });
    assert.equal(ok.status, 200, 'a route of 2L blocks runs');
    const silenced = await fetch(`${servers[0].url}/completions`, { method: 'POST', body: JSON.stringify({ prompt: [1, 2], max_tokens: 2, silenced_mlp: [0, 1, 2, 3, 0] }) });
    assert.equal(silenced.status, 400);
  });

  it('refuses a prompt text that cannot fit from its length, before tokenizing; /health stays quick (defect 3)', async (t) => {
    const prompt = 'word '.repeat(780_000); // 3.9 MB
    const started = Date.now();
    const pending = fetch(`${servers[0].url}/completions`, { method: 'POST', body: JSON.stringify({ prompt, max_tokens: 4 }) });
    const health = await fetch(servers[0].url.replace(/\/v1$/, '/health'));
    const healthMs = Date.now() - started;
    const r = await pending;
    const json = (await r.json()) as { error: { message: string } };
    assert.equal(r.status, 400);
    assert.match(json.error.message, /^prompt \(at least \d+ tokens\) \+ max_tokens \(4\) is over the model's context of \d+ tokens$/);
    assert.equal(health.status, 200);
    assert.ok(Date.now() - started < 3000 && healthMs < 3000, `refused in ${Date.now() - started} ms, /health in ${healthMs} ms`);
    t.diagnostic(`3.9 MB prompt refused in ${Date.now() - started} ms, /health in ${healthMs} ms`);
  });

  it('quotes bad values without serializing them: deep nesting, 1e999', async (t) => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const cases: [string, RegExp][] = [
      [`{"prompt":[1,2],"max_tokens":4,"stop":${deep}}`, /^stop: expected a string or an array of strings, got an array of 1$/],
      [`{"prompt":[1,2],"max_tokens":4,"seed":${deep}}`, /^seed: expected an integer, got an array of 1$/],
      ['{"prompt":[1,2],"max_tokens":4,"temperature":1e999}', /^temperature: expected a finite number, got Infinity$/],
    ];
    for (const [body, message] of cases) {
      const r = await fetch(`${servers[0].url}/completions`, { method: 'POST', body });
      const json = (await r.json()) as { error: { message: string } };
      assert.equal(r.status, 400, body.slice(0, 60));
      assert.match(json.error.message, message);
      t.diagnostic(json.error.message);
    }
  });

  it('answers 413 to a chunked body over the limit, and to a huge declared one without reading it', async (t) => {
    const chunked = await rawPost(servers[0].url, (req) => {
      // No content-length: node sends it chunked, 5 MB in 64 KB pieces.
      const piece = 'x'.repeat(64 * 1024);
      let sent = 0;
      const more = () => {
        while (sent < 80 && req.write(piece)) sent++;
        if (sent >= 80) req.end();
        else req.once('drain', () => (sent++, more()));
      };
      req.on('error', () => {});
      more();
    });
    assert.equal(chunked.status, 413, JSON.stringify(chunked));
    assert.match(chunked.body, /request body is over the limit of 4194304 bytes/);

    // Declares 1 GB and keeps sending: the answer comes at once, and the server stops taking bytes.
    let written = 0;
    const declared = await rawPost(
      servers[0].url,
      (req) => {
        const piece = Buffer.alloc(64 * 1024, 120);
        const more = () => {
          while (written < 256 * 1024 * 1024 && !req.destroyed && req.write(piece)) written += piece.length;
          if (!req.destroyed && written < 256 * 1024 * 1024) req.once('drain', () => ((written += piece.length), more()));
        };
        req.on('error', () => {});
        more();
        setTimeout(() => req.destroy(), 5000).unref();
      },
      { 'content-length': 1024 * 1024 * 1024 },
    );
    assert.equal(declared.status, 413, JSON.stringify(declared));
    assert.match(declared.body, /request body of 1073741824 bytes is over the limit/);
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(written < 32 * 1024 * 1024, `the client got ${written} bytes in`);
    t.diagnostic(`413 for a declared 1 GB in ${declared.ms} ms; the client got ${written} bytes in before the connection closed`);
  });

  it('a client that leaves during a long prefill frees the engine within a block call', async () => {
    // The longest route the server takes (each block twice) over a 1,500-token prompt.
    const L = SMALL_SPECS.llama.numBlocks;
    const route = Array.from({ length: 2 * L }, (_, i) => i % L);
    const before = f.model.stats.blockCalls;
    const client = new AbortController();
    const leaving = fetch(`${servers[0].url}/completions`, {
      method: 'POST',
      body: JSON.stringify({ prompt: promptIds(1500, 9, V), max_tokens: 4, temperature: 0, route }),
      signal: client.signal,
    }).catch((err: unknown) => err);
    while (f.model.stats.blockCalls === before) await new Promise((resolve) => setTimeout(resolve, 1));
    client.abort();
    assert.equal((await leaving as Error).name, 'AbortError');
    // The next client's short request runs once the abandoned step stops.
    const next = await fetch(`${servers[0].url}/completions`, { method: 'POST', body: JSON.stringify({ prompt: [V - 1, V - 2], max_tokens: 1, temperature: 0 }) });
    assert.equal(next.status, 200);
    const ran = f.model.stats.blockCalls - before - L;
    assert.ok(ran <= 3, `${ran} of ${2 * L} block calls of the abandoned prefill ran`);
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
      assert.deepEqual(await health.json(), { status: 'ok' }, 'but shows the model only to a client with it');
      await assert.rejects(RemoteGenerator.open({ modelDir: f.written.dir, baseUrls: [guarded.url], checkSeed: false, maxRetries: 0 }), /answered 401/);
      const remote = await RemoteGenerator.open({ modelDir: f.written.dir, baseUrls: [guarded.url], apiKey: 's3cret-token', checkSeed: false });
      const [g] = await remote.generate([requests()[0]]);
      assert.equal(g.tokens.length > 0, true);
      assert.ok(!JSON.stringify(remote.info).includes('s3cret'), 'the backend info carries no secret');
      assert.equal(remote.info.layerAccess, true, 'the client sends the token to /health and sees the extensions');
    } finally {
      await guarded.close();
    }
  });

  it('a body sent a byte at a time is answered 408 and closed at the receipt limit, and connections past the cap are closed (issue 39, weak case)', async () => {
    const limited = await startHttpServer({ model: f.model, modelName: 'limited', host: '127.0.0.1', port: 0, requestReceiptMs: 600, maxConnections: 2 });
    const timers: NodeJS.Timeout[] = [];
    const sockets: net.Socket[] = [];
    try {
      const { port } = new URL(limited.url);
      // Declares 1,000 bytes and sends one every 50 ms: the old server held it for 300 s.
      const trickle = await Promise.race([
        rawPost(limited.url, (req) => {
          req.on('error', () => {});
          const t = setInterval(() => (req.destroyed ? clearInterval(t) : req.write('x')), 50);
          timers.push(t);
        }, { 'content-length': 1000 }),
        new Promise<{ status?: number; ms: number }>((r) => setTimeout(() => r({ ms: 5000 }), 5000).unref()),
      ]);
      assert.equal(trickle.status, 408, JSON.stringify(trickle));
      assert.ok(trickle.ms < 3000, `took ${trickle.ms} ms`);
      timers.forEach(clearInterval);
      // Two connections hold the cap (headers sent, the body never); a third is closed as it arrives.
      const open = (): Promise<{ socket: net.Socket; closed: Promise<number> }> =>
        new Promise((resolve) => {
          const started = Date.now();
          const socket = net.connect(Number(port), '127.0.0.1', () => resolve({ socket, closed }));
          const closed = new Promise<number>((r) => socket.on('close', () => r(Date.now() - started)));
          socket.on('error', () => {});
          sockets.push(socket);
        });
      for (let i = 0; i < 2; i++) (await open()).socket.write('POST /v1/completions HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\n');
      await new Promise((r) => setTimeout(r, 100));
      const third = await open();
      const closedIn = await Promise.race([third.closed, new Promise<number>((r) => setTimeout(() => r(Infinity), 400).unref())]);
      assert.ok(closedIn < 400, 'the third connection is closed at once');
    } finally {
      timers.forEach(clearInterval);
      sockets.forEach((s) => s.destroy());
      await limited.close();
    }
  });

  it('refuses to listen beyond loopback without a token unless told to', async () => {
    for (const host of ['127.0.0.1', '127.5.6.7', '::1', 'localhost']) assert.equal(isLoopback(host), true, host);
    for (const host of ['0.0.0.0', '::', '192.168.1.4', 'example.test', '::ffff:10.0.0.1']) assert.equal(isLoopback(host), false, host);
    for (const host of ['0.0.0.0', '::']) {
      await assert.rejects(
        startHttpServer({ model: f.model, modelName: 'open', host, port: 0 }),
        /listening beyond this machine without a token lets anyone who can reach the port run the model; set a token with --token-env VAR/,
      );
    }
  });
});
