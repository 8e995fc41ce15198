/**
 * The remote backend against hostile OpenAI-compatible servers on loopback (issue 29): huge or
 * endless bodies, answers beyond the request (tokens over max_tokens, ids outside the vocabulary,
 * positive or miscounted log-probs), Retry-After of an hour or 1e999, headers then a trickle, no
 * answer at all, redirects, non-JSON bodies, errors echoing the key. Each ends in bounded time with
 * one line naming the server and the field, and every wait is announced. Each server answers a
 * bounded number of requests and is closed by the test.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { RemoteGenerator, checkBaseUrl, type GenerationRequest, type RemoteOptions } from '../../../src/engine';
import { SMALL_SPECS, writeRandomModel } from '../../support/modelFolder';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void;

/** A loopback server: /v1/models lists one model, every POST goes to `handler` (n counts POSTs). */
async function hostileServer(handler: Handler) {
  let posts = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model', created: 0, owned_by: 'x' }] }));
        return;
      }
      if (req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      handler(req, res, posts++);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    url,
    posts: () => posts,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** A server that sends headers, then one byte of its body every 50 ms for as long as the client reads. */
async function trickleServer() {
  const timers: NodeJS.Timeout[] = [];
  const s = await hostileServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"choices":[{"text":"');
    const t = setInterval(() => res.write('z'), 50);
    timers.push(t);
    res.on('close', () => clearInterval(t));
  });
  return { s, timers };
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

const completion = (choice: Record<string, unknown>, usage?: Record<string, unknown>) => ({
  id: 'c',
  object: 'text_completion',
  created: 0,
  model: 'm',
  choices: [{ index: 0, finish_reason: 'length', ...choice }],
  ...(usage ? { usage } : {}),
});

describe('remote backend: hostile servers', () => {
  let modelDir: string;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-hostile-'));
  before(() => {
    modelDir = path.join(root, 'model');
    writeRandomModel(modelDir, SMALL_SPECS.llama);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const V = SMALL_SPECS.llama.vocabSize;
  const request: GenerationRequest = { promptIds: [5, 6, 7, 8], maxNewTokens: 6, decoding: { temperature: 0, topP: 1, seed: 1 } };

  /** Opens a backend on `url`, generates once, and gives the error, the time it took and the notices. */
  async function failure(url: string, options: Partial<RemoteOptions> = {}) {
    const notices: string[] = [];
    const remote = await RemoteGenerator.open({ modelDir, baseUrls: [url], apiModel: 'm', checkSeed: false, onNotice: (m) => notices.push(m), ...options });
    const started = Date.now();
    const err = await remote.generate([request]).then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e as Error,
    );
    return { err, ms: Date.now() - started, notices };
  }

  it('stops reading a 50 MB body at the response limit, naming the server (defect 1)', async () => {
    // The body streams until the client stops reading; the server gives up after 64 MB.
    const s = await hostileServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices":[{"index":0,"finish_reason":"length","text":"');
      let sent = 0;
      const chunk = 'x'.repeat(1 << 20);
      const more = () => {
        while (sent < 64 && res.write(chunk)) sent++;
        if (sent >= 64) res.end('"}]}');
        else res.once('drain', () => (sent++, more()));
      };
      res.on('close', () => (sent = 64));
      more();
    });
    try {
      const heapBefore = process.memoryUsage().heapUsed;
      const { err, ms } = await failure(s.url, { maxRetries: 3 });
      assert.match(err.message, new RegExp(`^${s.url.replace(/[.]/g, '\\.')}: the response body is over 16777216 bytes; stopped reading`));
      assert.equal(s.posts(), 1, 'a body over the limit is not asked for again');
      assert.ok(ms < 10_000, `took ${ms} ms`);
      assert.ok(process.memoryUsage().heapUsed - heapBefore < 200 * 1024 * 1024, 'the heap did not take the body');
    } finally {
      await s.close();
    }
  });

  it('refuses a text longer than max_tokens can spell, before tokenizing it (defect 1)', async () => {
    const s = await hostileServer((_req, res) => json(res, 200, completion({ text: 'y'.repeat(4 * 1024 * 1024) })));
    try {
      const { err, ms } = await failure(s.url);
      assert.match(err.message, /: the completion response's choices\[0\]\.text is 4194304 bytes, more than 6 tokens \(max_tokens\) can spell$/);
      assert.ok(ms < 5000, `took ${ms} ms`);
    } finally {
      await s.close();
    }
  });

  it('refuses 3 token ids beside 15 MB of text: the text is bounded whatever ids the server claims (issue 39, defect 1)', async () => {
    const s = await hostileServer((_req, res) => json(res, 200, completion({ text: 'z'.repeat(15 * 1024 * 1024), token_ids: [1, 2, 3] })));
    try {
      const { err, ms } = await failure(s.url);
      assert.match(err.message, /: the completion response's choices\[0\]\.text is 15728640 bytes, more than 6 tokens \(max_tokens\) can spell$/);
      assert.ok(ms < 5000, `took ${ms} ms`);
    } finally {
      await s.close();
    }
  });

  for (const [what, choice, usage, expected] of [
    ['token ids over max_tokens', { text: 'a', token_ids: [1, 2, 3, 4, 5, 6, 7] }, undefined, /choices\[0\]\.token_ids holds 7 tokens; max_tokens was 6/],
    ['a negative token id', { text: 'a', token_ids: [1, -5] }, undefined, /choices\[0\]\.token_ids\[1\] is -5; expected a token id in 0\.\.299/],
    ['a token id of 1e12', { text: 'a', token_ids: [1e12] }, undefined, /choices\[0\]\.token_ids\[0\] is 1000000000000; expected a token id/],
    ['a token id outside the vocabulary', { text: 'a', token_ids: [V] }, undefined, /token_ids\[0\] is 300; expected a token id in 0\.\.299/],
    ['token ids that are not an array', { text: 'a', token_ids: 'abc' }, undefined, /token_ids is not an array/],
    ['a positive log-prob', { text: 'a', token_ids: [1, 2], logprobs: { token_logprobs: [-0.5, 3.2] } }, undefined, /token_logprobs\[1\] is 3\.2; expected a log-probability/],
    ['a log-prob count unlike the token count', { text: 'a', token_ids: [1, 2], logprobs: { token_logprobs: [-0.5, -0.1, -0.2] } }, undefined, /token_logprobs holds 3 values for 2 generated tokens/],
    ['a completion token count over the budget', { text: 'a' }, { completion_tokens: 4096, prompt_tokens: 4, total_tokens: 4100 }, /usage\.completion_tokens is 4096; expected a whole number from 0 to max_tokens \(6\)/],
    ['no text', { token_ids: [1] }, undefined, /choices\[0\]\.text is missing or not a string \(got nothing\)/],
  ] as const) {
    it(`refuses ${what}, naming the field (weak: remote ids, log-probs, counts)`, async () => {
      const s = await hostileServer((_req, res) => json(res, 200, completion(choice, usage)));
      try {
        const { err } = await failure(s.url);
        assert.ok(err.message.startsWith(`${s.url}: the completion response's `), err.message);
        assert.match(err.message, expected);
      } finally {
        await s.close();
      }
    });
  }

  it('keeps a well-formed answer: ids in range, log-probs at most 0 (a rounding hair above 0 reads as 0)', async () => {
    const s = await hostileServer((_req, res) => json(res, 200, completion({ text: 'ab', token_ids: [3, 4], logprobs: { token_logprobs: [-0.25, 1e-9] } })));
    try {
      const remote = await RemoteGenerator.open({ modelDir, baseUrls: [s.url], apiModel: 'm', checkSeed: false });
      const [g] = await remote.generate([request]);
      assert.deepEqual(g.tokens, [3, 4]);
      assert.deepEqual(g.logprobs, [-0.25, 0]);
    } finally {
      await s.close();
    }
  });

  for (const retryAfter of ['3600', '1e999']) {
    it(`gives up at once on Retry-After: ${retryAfter}, saying why, with no timer warning (defect 4)`, async () => {
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(w.name);
      process.on('warning', onWarning);
      const s = await hostileServer((_req, res) => json(res, 429, { error: { message: 'slow down', type: 'rate_limit_error' } }, { 'retry-after': retryAfter }));
      try {
        const { err, ms } = await failure(s.url);
        assert.match(err.message, /answered 429: .*slow down; it asks to retry after (3600 s|forever), more than the 60 s this client waits/);
        assert.equal(s.posts(), 1);
        assert.ok(ms < 2000, `took ${ms} ms`);
        await new Promise((r) => setImmediate(r));
        assert.deepEqual(warnings, []);
      } finally {
        process.off('warning', onWarning);
        await s.close();
      }
    });
  }

  it('announces each retry wait, and gives up after --max-retries naming it', async () => {
    const s = await hostileServer((_req, res) => json(res, 503, { error: { message: 'overloaded' } }, { 'retry-after': '0.1' }));
    try {
      const { err, notices } = await failure(s.url, { maxRetries: 2 });
      assert.match(err.message, /answered 503: .*overloaded; gave up after 2 retries \(--max-retries\)/);
      assert.equal(s.posts(), 3);
      assert.deepEqual(notices, [`${s.url}: answered 503; retry 1 of 2 in 0.1 s`, `${s.url}: answered 503; retry 2 of 2 in 0.1 s`]);
    } finally {
      await s.close();
    }
  });

  it('an abort ends a retry wait at once', async () => {
    const s = await hostileServer((_req, res) => json(res, 429, { error: { message: 'wait' } }, { 'retry-after': '30' }));
    try {
      const notices: string[] = [];
      const remote = await RemoteGenerator.open({ modelDir, baseUrls: [s.url], apiModel: 'm', checkSeed: false, onNotice: (m) => notices.push(m) });
      const controller = new AbortController();
      const started = Date.now();
      const pending = remote.generate([request], controller.signal);
      while (notices.length === 0) await new Promise((r) => setTimeout(r, 10));
      controller.abort(new Error('stopped by the user'));
      await assert.rejects(pending, /stopped by the user/);
      assert.ok(Date.now() - started < 2000);
      assert.match(notices[0], /answered 429; retry 1 of 4 in 30 s/);
    } finally {
      await s.close();
    }
  });

  it('headers then a trickle: the timeout covers the body, and the wait is announced (defect 5)', async () => {
    const { s, timers } = await trickleServer();
    try {
      const { err, ms, notices } = await failure(s.url, { timeoutMs: 400, maxRetries: 1, slowNoticeMs: 200 });
      assert.equal(err.message, `${s.url}: the server did not answer in time; gave up after 1 retry (--max-retries)`);
      assert.equal(s.posts(), 2);
      assert.ok(ms < 3000, `took ${ms} ms`);
      assert.ok(notices.some((n) => n.startsWith(`${s.url}: 1 request waiting, the oldest for `) && n.endsWith('(each attempt gives up after 0.4 s: --timeout; its tries together after 0.8 s)')), notices.join('\n'));
      assert.ok(notices.some((n) => n.startsWith(`${s.url}: no answer in time; retry 1 of 1 in `)), notices.join('\n'));
    } finally {
      timers.forEach(clearInterval);
      await s.close();
    }
  });

  it('a trickle that never ends: the tries together stop at twice --timeout, not at --max-retries timeouts (issue 39, weak case)', async () => {
    const { s, timers } = await trickleServer();
    try {
      // At the defaults (600 s, 4 retries) the old tries took 50 minutes; here 5 x 0.4 s plus 7.5 s of waits.
      const { err, ms } = await failure(s.url, { timeoutMs: 400, maxRetries: 4 });
      assert.match(err.message, new RegExp(`^${s.url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: the server did not answer in time; gave up after 0\\.[89] s of tries, 2 times --timeout$`));
      assert.equal(s.posts(), 2);
      assert.ok(ms < 3000, `took ${ms} ms`);
    } finally {
      timers.forEach(clearInterval);
      await s.close();
    }
  });

  it('many generate calls waiting on one server give one line per interval, not one per call', async () => {
    const s = await hostileServer(() => {
      /* never answers */
    });
    try {
      const notices: string[] = [];
      const remote = await RemoteGenerator.open({ modelDir, baseUrls: [s.url], apiModel: 'm', checkSeed: false, concurrency: 8, timeoutMs: 700, maxRetries: 0, slowNoticeMs: 300, onNotice: (m) => notices.push(m) });
      const calls = Array.from({ length: 8 }, () => remote.generate([request]).catch(() => undefined));
      await Promise.all(calls);
      const slow = notices.filter((n) => n.includes('waiting, the oldest'));
      assert.ok(slow.length >= 1 && slow.length <= 3, slow.join('\n'));
      assert.match(slow[0], /: 8 requests waiting, the oldest for /);
    } finally {
      await s.close();
    }
  });

  it('a server that never answers is given up on after --timeout (defect 5)', async () => {
    const s = await hostileServer(() => {
      /* never answers */
    });
    try {
      const { err, ms } = await failure(s.url, { timeoutMs: 300, maxRetries: 0 });
      assert.equal(err.message, `${s.url}: the server did not answer in time`);
      assert.ok(ms < 2000, `took ${ms} ms`);
    } finally {
      await s.close();
    }
  });

  it('refuses a redirect to another server instead of following it', async () => {
    const other = await hostileServer((_req, res) => json(res, 200, completion({ text: 'a' })));
    const s = await hostileServer((_req, res) => {
      res.writeHead(307, { location: `${other.url}/completions` });
      res.end();
    });
    try {
      const { err } = await failure(s.url);
      assert.match(err.message, new RegExp(`answered 307, a redirect to ${other.url.replace(/[.]/g, '\\.')}/completions; redirects are not followed`));
      assert.equal(other.posts(), 0);
      assert.equal(s.posts(), 1);
    } finally {
      await s.close();
      await other.close();
    }
  });

  it('refuses file:// and credential-bearing base URLs before sending anything', async () => {
    assert.throws(() => checkBaseUrl('file:///etc/passwd'), /--base-url: 'file:\/\/\/etc\/passwd' uses file:; expected an http:\/\/ or https:\/\/ server URL/);
    assert.throws(() => checkBaseUrl('http://user:pa55@127.0.0.1:9/v1'), (e: Error) => /carries a user name or password; give the key with --api-key-env/.test(e.message) && !e.message.includes('pa55'));
    const started = Date.now();
    await assert.rejects(RemoteGenerator.open({ modelDir, baseUrls: ['file:///tmp/x'], checkSeed: false }), /uses file:/);
    assert.ok(Date.now() - started < 1000);
  });

  it('names the server when a 200 body is not JSON', async () => {
    const s = await hostileServer((_req, res) => json(res, 200, '{"choices":[{"text":"unterminated'));
    try {
      const { err } = await failure(s.url);
      assert.match(err.message, new RegExp(`^${s.url.replace(/[.]/g, '\\.')}: the response body is not valid JSON \\(`));
    } finally {
      await s.close();
    }
  });

  it('blanks the API key out of a server error and cuts a 100 KB message', async () => {
    const key = 'sk-live-0123456789abcdef';
    const s = await hostileServer((req, res) => json(res, 400, { error: { message: `bad request from ${String(req.headers.authorization)}: ${'e'.repeat(100_000)}` } }));
    try {
      const { err } = await failure(s.url, { apiKey: key });
      assert.ok(!err.message.includes(key), err.message.slice(0, 200));
      assert.match(err.message, /bad request from Bearer \[redacted\]: e+… \(\d+ more characters\)$/);
      assert.ok(err.message.length < 800, `${err.message.length} characters`);
    } finally {
      await s.close();
    }
  });

  it('refuses a key holding a line break before sending it, without showing it (issue 39, defect 2)', async () => {
    const key = 'sk-two-line-9f8e7d\r\nX-Injected: 1';
    const s = await hostileServer((_req, res) => json(res, 200, completion({ text: 'a' })));
    try {
      const err = await RemoteGenerator.open({ modelDir, baseUrls: [s.url], apiModel: 'm', apiKey: key, checkSeed: false }).then(
        () => assert.fail('expected a refusal'),
        (e: unknown) => e as Error,
      );
      assert.match(err.message, /the API key holds a line break or control character/);
      assert.ok(!err.message.includes('sk-two-line'), err.message);
      assert.equal(s.posts(), 0, 'nothing was sent');
    } finally {
      await s.close();
    }
  });

  it('keeps a key a server reflects out of the model name it records and out of the text it stores (issue 39, defect 3)', async () => {
    const key = 'sk-reflected-4b3c2a1d';
    const server = http.createServer((req, res) => {
      const auth = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      req.resume();
      req.on('end', () => {
        if (req.url === '/v1/models') return json(res, 200, { object: 'list', data: [{ id: `model-${auth}`, object: 'model', created: 0, owned_by: 'x' }] });
        json(res, 200, completion({ text: `k=${auth}` }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const remote = await RemoteGenerator.open({ modelDir, baseUrls: [url], apiKey: key, checkSeed: false });
      assert.equal(remote.info.apiModel, 'model-[redacted]');
      const [g] = await remote.generate([{ ...request, maxNewTokens: 64 }]);
      assert.equal(g.text, 'k=[redacted]');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('honours x-should-retry: false: one request, the reason named (issue 39, weak case)', async () => {
    const s = await hostileServer((_req, res) => json(res, 503, { error: { message: 'overloaded' } }, { 'x-should-retry': 'false' }));
    try {
      const { err } = await failure(s.url, { maxRetries: 3 });
      assert.equal(s.posts(), 1, 'not tried again');
      assert.match(err.message, /the server answered 503: .*overloaded; the server says not to retry \(x-should-retry: false\)$/);
    } finally {
      await s.close();
    }
  });
});
