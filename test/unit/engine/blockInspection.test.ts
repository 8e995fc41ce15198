/**
 * The engine's block inspection (logit lens and direct logits) against the independent float64
 * reference: on every random architecture (F32 and BF16) and on the demo model, the lens logits
 * after each block within 1e-4 relative, each component's direct logits likewise, and the
 * embedding's and every block's attention and MLP contributions to a logit difference summing to
 * the last block's lens difference. The last lens row is the model's own forward logits.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ReferenceModel, maxRelativeDifference } from '../../support/referenceTransformer';
import { type Model, loadModel } from '../../../src/engine';
import { TOLERANCE, type Fixture, cacheDir, fixture, promptIds, specVariants } from './engineTestModels';

const DEMO = path.resolve(__dirname, '../../../../media/demo/base');

async function checkAgainstReference(model: Model, ref: ReferenceModel, ids: number[]): Promise<void> {
  const got = await model.inspect(ids);
  const want = ref.blockTrace(ids);
  const L = ref.numBlocks;
  assert.equal(got.lens.length, L);
  for (let b = 0; b < L; b++) {
    const err = maxRelativeDifference(got.lens[b], ref.lensLogits(want.residual[b]));
    assert.ok(err < TOLERANCE, `lens after block ${b}: relative error ${err}`);
  }
  // The last lens row is the deployed forward pass itself.
  assert.deepEqual([...got.lens[L - 1]], [...(await model.forward(ids))]);

  const frozen = ref.normScale(want.residual[L - 1]);
  const scaleOf = ref.lensLogits(want.residual[L - 1]);
  const relative = (a: Float32Array, b: Float64Array): number => {
    // Relative to the logits' own scale: a component's direct logits can be near zero.
    let d = 0;
    let s = 0;
    for (let i = 0; i < b.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
    for (const x of scaleOf) s = Math.max(s, Math.abs(x));
    return d / (s || 1);
  };
  assert.ok(relative(got.direct.embedding, ref.frozenNormLogits(want.embedding, frozen)) < TOLERANCE, 'embedding direct logits');
  for (let b = 0; b < L; b++) {
    const ea = relative(got.direct.attention[b], ref.frozenNormLogits(want.attention[b], frozen));
    const em = relative(got.direct.mlp[b], ref.frozenNormLogits(want.mlp[b], frozen));
    assert.ok(ea < TOLERANCE, `block ${b} attention direct logits: relative error ${ea}`);
    assert.ok(em < TOLERANCE, `block ${b} MLP direct logits: relative error ${em}`);
  }

  // Contributions sum to the last block's lens difference for any pair of tokens.
  const last = got.lens[L - 1];
  for (const [g, d] of [[0, 1], [5, ref.vocabSize - 1], [ids[0], ids[ids.length - 1]]]) {
    if (g === d) continue;
    let sum = got.direct.embedding[g] - got.direct.embedding[d];
    for (let b = 0; b < L; b++) sum += got.direct.attention[b][g] - got.direct.attention[b][d] + got.direct.mlp[b][g] - got.direct.mlp[b][d];
    const diff = last[g] - last[d];
    let scale = 0;
    for (const x of last) scale = Math.max(scale, Math.abs(x));
    assert.ok(Math.abs(sum - diff) <= TOLERANCE * scale, `tokens ${g}/${d}: contributions sum to ${sum}, lens difference ${diff}`);
  }
}

for (const { name, spec } of specVariants()) {
  describe(`block inspection: ${name}`, () => {
    let f: Fixture;
    before(async () => { f = await fixture(`inspect-${name}`, spec); });
    it('matches the float64 reference (lens, direct logits, contributions sum to the lens difference)', async () => {
      await checkAgainstReference(f.model, f.ref, promptIds(9, 3, spec.vocabSize));
    });
    it('matches on a one-token context', async () => {
      await checkAgainstReference(f.model, f.ref, promptIds(1, 5, spec.vocabSize));
    });
  });
}

describe('block inspection: demo model', () => {
  let model: Model;
  let ref: ReferenceModel;
  before(async () => {
    model = await loadModel(DEMO, { cacheDir, threads: 1 });
    ref = ReferenceModel.load(DEMO);
  });
  after(async () => { await model.dispose(); });
  it('matches the float64 reference on a 30-token context', async () => {
    await checkAgainstReference(model, ref, promptIds(30, 7, 354));
  });
});
