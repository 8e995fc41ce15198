/**
 * Batch invariance of the prefill at realistic prompt lengths: a prompt prefilled together with
 * longer prompts (its rows padded in the batch) gets bit for bit the log-probs it gets alone. The
 * small random models' short prompts did not show it; the demo model's prompts over 96 tokens did
 * (the audit bench's records differed from a question audited alone in their log-probs).
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { type GenerationRequest, type Model, loadModel } from '../../../src/engine';
import { cacheDir, promptIds } from './engineTestModels';

const ROOT = path.resolve(__dirname, '../../../..');
const BASE = path.join(ROOT, 'media/demo/base');

describe('prefill batch invariance at ~100-token prompts (demo model)', () => {
  let model: Model;
  before(async () => { model = await loadModel(BASE, { cacheDir, threads: 1 }); });
  after(async () => { await model.dispose(); });

  it('gives a prompt the same log-probs alone and prefilled with longer and shorter prompts, on any route', async () => {
    // The prompt the audit bench built for one of its questions on this model (97 tokens); random
    // ids of similar lengths did not show the difference.
    const prompt = [1,4,101,51,70,89,70,81,78,70,100,88,84,81,73,337,347,121,25,309,100,77,74,87,273,285,100,38,85,87,78,81,17,227,343,100,88,77,74,100,88,84,81,73,125,346,230,299,285,100,50,70,94,19,197,299,337,100,73,78,73,100,88,77,74,100,88,74,81,81,100,70,81,89,84,76,74,89,77,74,87,285,100,38,85,87,78,81,227,100,50,70,94,36,101,5,101];
    const V = 354;
    const greedy = { temperature: 0, topP: 1, seed: 0 };
    for (const route of [undefined, [0, 0, 4, 5, 6, 7], [0, 2, 3, 2, 3, 4, 4, 5, 6]]) {
      const request: GenerationRequest = { promptIds: prompt, route, maxNewTokens: 3, decoding: greedy };
      const [alone] = await model.generate([request]);
      const mates: GenerationRequest[] = [
        { promptIds: [...prompt, ...prompt.slice(0, 20)], maxNewTokens: 2, decoding: greedy },
        { promptIds: promptIds(60, 3, V), route: [0, 1, 1, 2, 3, 4, 5, 6, 7], maxNewTokens: 5, decoding: { temperature: 1, topP: 1, seed: 9 } },
        { promptIds: promptIds(125, 4, V), route, maxNewTokens: 4, decoding: greedy },
      ];
      const together = await model.generate([mates[0], request, ...mates.slice(1)]);
      assert.deepEqual(together[1].tokens, alone.tokens, `route ${JSON.stringify(route)}`);
      assert.deepEqual(together[1].logprobs, alone.logprobs, `route ${JSON.stringify(route)} log-probs`);
    }
  });
});
