import { after, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadModel, type Model } from '../../../src/engine';
import { InputError } from '../../../src/common/errors';
import { firstNonFinite } from '../../../src/engine/decode/nonFiniteActivations';
import { SMALL_SPECS, buildModelTensors, writeRandomModel, writeWeights } from '../../support/modelFolder';
import { writeOverflowingModel } from '../../support/overflowingModel';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-nonfinite-'));
const cacheDir = path.join(root, 'cache');
const models: Model[] = [];
after(async () => {
  for (const m of models) await m.dispose();
  fs.rmSync(root, { recursive: true, force: true });
});

async function load(dir: string): Promise<Model> {
  const m = await loadModel(dir, { cacheDir, threads: 1 });
  models.push(m);
  return m;
}

const greedy = { temperature: 0, topP: 1, seed: 0 };
const POISON = 126; // the byte "~"
const NUMBER = '(?:NaN|-?Infinity)';
const TAIL = '; the weights are finite \\(checked at load\\), so the activations overflow float32 on this input$';

function rejectsWith(pattern: RegExp) {
  return (err: Error) => {
    assert.ok(err instanceof InputError, `${err.name}: ${err.message}`);
    assert.match(err.message, pattern);
    return true;
  };
}

describe('non-finite activations at run time', () => {
  it('firstNonFinite finds NaN and both infinities within the range only', () => {
    const a = Float32Array.from([1, 2, Number.NaN, 4, Number.POSITIVE_INFINITY, -0, Number.NEGATIVE_INFINITY]);
    assert.equal(firstNonFinite(a, 0, a.length), 2);
    assert.equal(firstNonFinite(a, 3, a.length), 4);
    assert.equal(firstNonFinite(a, 5, a.length), 6);
    assert.equal(firstNonFinite(a, 5, 6), -1);
    assert.equal(firstNonFinite(Float32Array.from([3.4e38, -3.4e38, 1e-45]), 0, 3), -1);
  });

  it('a prompt whose activations overflow fails naming the model, the block, the route and the token; other prompts run', async () => {
    const dir = path.join(root, 'poison-prompt');
    writeOverflowingModel(dir, POISON);
    const model = await load(dir);
    const clean = await model.generate([{ promptIds: [5, 6, 7, 8], maxNewTokens: 4, decoding: greedy }]);
    assert.equal(clean[0].tokens.length, 4);
    assert.ok(clean[0].logprobs.every(Number.isFinite));
    await assert.rejects(
      model.generate([{ promptIds: [5, 6, POISON, 8], maxNewTokens: 4, decoding: greedy }]),
      rejectsWith(new RegExp(`^model ${path.resolve(dir)}: block 0 \\(position 0 of route \\[0,1,2,3\\]\\) produced ${NUMBER} at token 3 of the 4-token prompt${TAIL}`)),
    );
    // The same model keeps working after the failure, and a route and silenced MLPs are named.
    await assert.rejects(
      model.generate([
        { promptIds: [9, 10], maxNewTokens: 2, decoding: greedy },
        { promptIds: [POISON, 9], route: [0, 0, 1, 3], silencedMlp: [1, 3], maxNewTokens: 2, decoding: greedy },
      ]),
      rejectsWith(/: block 0 \(position 0 of route \[0,0,1,3\] with the MLP of blocks 1, 3 silenced\) produced \S+ at token 1 of the 2-token prompt;/),
    );
    await assert.rejects(model.forward([POISON]), rejectsWith(new RegExp(`^model ${path.resolve(dir)}: block 0 \\(position 0 of route \\[0,1,2,3\\]\\) produced ${NUMBER} at token 1 of the 1-token prompt${TAIL}`)));
    assert.equal((await model.generate([{ promptIds: [5, 6, 7, 8], maxNewTokens: 4, decoding: greedy }]))[0].tokens.join(), clean[0].tokens.join());
  });

  it('an overflow at a generated token names that token (it used to emit token 0 for ever)', async () => {
    const dir = path.join(root, 'poison-generated');
    writeOverflowingModel(dir, 0, { generatePoison: true });
    const model = await load(dir);
    await assert.rejects(
      model.generate([{ promptIds: [5, 6, 7], maxNewTokens: 8, decoding: greedy }]),
      rejectsWith(new RegExp(`^model ${path.resolve(dir)}: block 0 \\(position 0 of route \\[0,1,2,3\\]\\) produced ${NUMBER} at generated token 1${TAIL}`)),
    );
  });

  it('logits that overflow in the head are named as the head', async () => {
    const spec = SMALL_SPECS.llama;
    const dir = path.join(root, 'head');
    writeRandomModel(dir, spec);
    const tensors = buildModelTensors(spec);
    tensors.find((t) => t.name === 'model.norm.weight')!.data.fill(3e38);
    writeWeights(dir, tensors, false);
    const model = await load(dir);
    await assert.rejects(
      model.generate([{ promptIds: [5, 6, 7], maxNewTokens: 2, decoding: greedy }]),
      rejectsWith(new RegExp(`^model ${path.resolve(dir)}: the head \\(final norm and lm_head\\) produced ${NUMBER} in the logits after token 3 of the 3-token prompt \\(route \\[0,1,2,3\\]\\)${TAIL}`)),
    );
  });
});
