/**
 * The remote backend's requests in flight per server, across generate calls: an audit makes many
 * calls at once, and a limit per call let 40-odd requests open against a server that holds 64
 * connections (reach-audit serve --http closes the rest as they arrive: "cannot reach the server").
 * Also a waiting request leaves when its caller aborts, and the slots free again.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { RemoteGenerator, type GenerationRequest } from '../../../src/engine';
import { ServerSlots } from '../../../src/engine/remote/serverSlots';
import { SMALL_SPECS, writeRandomModel } from '../../support/modelFolder';

/** A server that answers each completion after `ms`, counting the requests it holds at once. */
async function countingServer(ms: number) {
  let open = 0;
  let most = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model', created: 0, owned_by: 'x' }] }));
        return;
      }
      open++;
      most = Math.max(most, open);
      setTimeout(() => {
        open--;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'c', object: 'text_completion', created: 0, model: 'm', choices: [{ index: 0, text: 'ok', finish_reason: 'stop', token_ids: [5] }] }));
      }, ms);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    most: () => most,
    close: () => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }),
  };
}

describe('remote backend: requests in flight per server', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-remote-slots-'));
  let modelDir: string;
  before(() => {
    modelDir = path.join(root, 'model');
    writeRandomModel(modelDir, SMALL_SPECS.llama);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const request: GenerationRequest = { promptIds: [5, 6, 7], maxNewTokens: 4, decoding: { temperature: 0, topP: 1, seed: 1 } };

  it('keeps at most --concurrency requests open across concurrent generate calls', async () => {
    const s = await countingServer(20);
    try {
      const remote = await RemoteGenerator.open({ modelDir, baseUrls: [s.url], apiModel: 'm', checkSeed: false, concurrency: 3 });
      // Ten calls of four requests at once, as ten questions in flight ask for their pool.
      const out = await Promise.all(Array.from({ length: 10 }, () => remote.generate([request, request, request, request])));
      assert.equal(out.flat().length, 40);
      assert.ok(out.flat().every((g) => g.text === 'ok'));
      assert.ok(s.most() <= 3, `the server held ${s.most()} requests at once; --concurrency is 3`);
      assert.ok(s.most() >= 2, 'requests still run side by side');
    } finally {
      await s.close();
    }
  });

  it('lets a waiting request leave on abort and frees its slot', async () => {
    const slots = new ServerSlots(1);
    const first = await slots.acquire();
    const aborter = new AbortController();
    const waiting = slots.acquire(aborter.signal);
    const next = slots.acquire();
    aborter.abort(new Error('stop'));
    await assert.rejects(waiting, /stop/);
    first();
    const release = await next;
    assert.equal(slots.inFlight, 1);
    release();
    release(); // twice is once
    assert.equal(slots.inFlight, 0);
  });
});
