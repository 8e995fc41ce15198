/**
 * `serve --http --weights int8` serves the 8-bit graphs it was asked for: before, the flag was read
 * and dropped, so the server answered from f32 weights while its user believed otherwise.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { startHttpServe } from '../support/cliRun';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-serve-weights-'));
const model = path.join(root, 'model');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
writeRandomModel(model, SMALL_SPECS.llama);

/** The log-probabilities the server gives its greedy continuation of a fixed prompt. */
async function servedLogprobs(weights: 'f32' | 'int8'): Promise<number[]> {
  const server = await startHttpServe(['--model', model, '--threads', '1', '--weights', weights], env);
  try {
    const res = await fetch(`${server.url}/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'model', prompt: [1, 2, 3, 4, 5], max_tokens: 4, temperature: 0, logprobs: 1 }),
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { choices: { logprobs: { token_logprobs: number[] } }[] };
    return body.choices[0].logprobs.token_logprobs;
  } finally {
    server.stop();
  }
}

describe('serve --http --weights', () => {
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('int8 answers from the 8-bit weights: its log-probabilities are not the f32 ones', async () => {
    const f32 = await servedLogprobs('f32');
    const int8 = await servedLogprobs('int8');
    assert.equal(f32.length, 4);
    assert.equal(int8.length, 4);
    assert.ok(f32.every(Number.isFinite) && int8.every(Number.isFinite));
    assert.notDeepEqual(int8, f32, 'the int8 server gave the f32 numbers: --weights was not passed to the model');
  });
});
