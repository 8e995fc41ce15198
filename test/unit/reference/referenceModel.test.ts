import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  RandomModelSpec,
  SMALL_SPECS,
  buildModelTensors,
  headDimOf,
  writeRandomModel,
  writeWeights,
} from '../../support/modelFolder';
import { ReferenceModel, argmax, maxRelativeDifference } from '../../support/referenceTransformer';
import { readModelWeights } from '../../support/safetensorsReader';
import type { TensorToWrite } from '../../support/safetensorsWriter';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ref-model-'));
let counter = 0;

function folder(spec: RandomModelSpec): string {
  const dir = path.join(root, `m${counter++}`);
  writeRandomModel(dir, spec);
  return dir;
}

/** Rewrites a folder's weights with edited tensors (same config otherwise). */
function rewrite(dir: string, spec: RandomModelSpec, edit: (t: TensorToWrite[]) => TensorToWrite[]): void {
  for (const f of fs.readdirSync(dir)) if (f.includes('safetensors')) fs.rmSync(path.join(dir, f));
  writeWeights(dir, edit(buildModelTensors(spec)), false);
}

const ids40 = Array.from({ length: 40 }, (_, i) => (i * 37 + 5) % 290);

test('single token: the reference equals a hand-written forward (attention = v at one position)', () => {
  for (const key of Object.keys(SMALL_SPECS)) {
    const spec = { ...SMALL_SPECS[key], numBlocks: 2, sharded: false };
    const dir = folder(spec);
    const ref = ReferenceModel.load(dir);
    const W = readModelWeights(dir);
    const g = (n: string) => W.get(n)!.data;
    const H = spec.hiddenSize;
    const hd = headDimOf(spec);
    const eps = spec.architecture.startsWith('Qwen') ? 1e-6 : 1e-5;
    const mv = (w: Float64Array, x: number[]) => {
      const out: number[] = [];
      for (let o = 0; o < w.length / x.length; o++) out.push(x.reduce((s, xi, i) => s + w[o * x.length + i] * xi, 0));
      return out;
    };
    const norm = (x: number[], w: Float64Array) => {
      const r = 1 / Math.sqrt(x.reduce((s, a) => s + a * a, 0) / x.length + eps);
      return x.map((a, i) => a * r * w[i]);
    };
    const id = 123;
    let x = Array.from(g('model.embed_tokens.weight').subarray(id * H, (id + 1) * H));
    for (let l = 0; l < 2; l++) {
      const p = `model.layers.${l}`;
      let vv = mv(g(`${p}.self_attn.v_proj.weight`), norm(x, g(`${p}.input_layernorm.weight`)));
      if (spec.architecture === 'Qwen2ForCausalLM') vv = vv.map((a, i) => a + g(`${p}.self_attn.v_proj.bias`)[i]);
      const rep = spec.numHeads / spec.numKvHeads;
      const cat: number[] = [];
      for (let a = 0; a < spec.numHeads; a++) {
        const kvh = Math.floor(a / rep);
        cat.push(...vv.slice(kvh * hd, (kvh + 1) * hd));
      }
      const o = mv(g(`${p}.self_attn.o_proj.weight`), cat);
      x = x.map((a, i) => a + o[i]);
      const h2 = norm(x, g(`${p}.post_attention_layernorm.weight`));
      const gate = mv(g(`${p}.mlp.gate_proj.weight`), h2);
      const up = mv(g(`${p}.mlp.up_proj.weight`), h2);
      const d = mv(
        g(`${p}.mlp.down_proj.weight`),
        gate.map((a, i) => (a / (1 + Math.exp(-a))) * up[i]),
      );
      x = x.map((a, i) => a + d[i]);
    }
    const head = spec.tieWordEmbeddings ? g('model.embed_tokens.weight') : g('lm_head.weight');
    const expected = mv(head, norm(x, g('model.norm.weight')));
    const got = ref.lastLogits([id]);
    assert.ok(maxRelativeDifference(got, expected) < 1e-12, key);
  }
});

test('default route is the identity route; logits are causal', () => {
  const dir = folder(SMALL_SPECS.llama);
  const ref = ReferenceModel.load(dir);
  const ids = ids40.slice(0, 12);
  const all = ref.logits(ids);
  assert.equal(all.length, ids.length);
  assert.deepEqual(ref.logits(ids, { route: [0, 1, 2, 3] }), all);
  const prefix = ref.logits(ids.slice(0, 5));
  for (let t = 0; t < 5; t++) assert.ok(maxRelativeDifference(prefix[t], all[t]) < 1e-12);
  assert.deepEqual(ref.lastLogits(ids), all[ids.length - 1]);
});

test('GQA maps query head a to kv head floor(a / group): equals MHA with duplicated k/v rows', () => {
  for (const key of ['llama', 'qwen2', 'qwen3']) {
    const spec: RandomModelSpec = { ...SMALL_SPECS[key], sharded: false, dtype: 'F32' };
    const gqa = ReferenceModel.load(folder(spec));
    const mhaSpec: RandomModelSpec = { ...spec, numKvHeads: spec.numHeads, headDim: headDimOf(spec) };
    const dir = folder(mhaSpec);
    const rep = spec.numHeads / spec.numKvHeads;
    const hd = headDimOf(spec);
    rewrite(dir, mhaSpec, () =>
      buildModelTensors(spec).map((t) => {
        if (!/self_attn\.[kv]_proj\.(weight|bias)$/.test(t.name)) return t;
        const row = t.shape.length === 2 ? t.shape[1] : 1;
        const data = new Float32Array(t.data.length * rep);
        for (let a = 0; a < spec.numHeads; a++) {
          const src = Math.floor(a / rep) * hd * row;
          data.set(t.data.subarray(src, src + hd * row), a * hd * row);
        }
        return { ...t, shape: t.shape.length === 2 ? [spec.numHeads * hd, row] : [spec.numHeads * hd], data };
      }),
    );
    const mha = ReferenceModel.load(dir);
    const ids = ids40.slice(0, 9);
    assert.ok(maxRelativeDifference(mha.lastLogits(ids), gqa.lastLogits(ids)) < 1e-12, key);
  }
});

test('tied embeddings equal an untied model whose lm_head is a copy of embed_tokens', () => {
  const spec: RandomModelSpec = { ...SMALL_SPECS.qwen2, dtype: 'F32' };
  const tied = ReferenceModel.load(folder(spec));
  const untiedSpec = { ...spec, tieWordEmbeddings: false };
  const dir = folder(untiedSpec);
  rewrite(dir, untiedSpec, (ts) => {
    const embed = ts.find((t) => t.name === 'model.embed_tokens.weight')!;
    return ts.map((t) => (t.name === 'lm_head.weight' ? { ...t, data: embed.data } : t));
  });
  const untied = ReferenceModel.load(dir);
  assert.ok(maxRelativeDifference(untied.lastLogits(ids40), tied.lastLogits(ids40)) < 1e-12);
});

test('Qwen2 with zero q/k/v biases equals the Llama wiring of the same weights', () => {
  const spec: RandomModelSpec = { ...SMALL_SPECS.qwen2, dtype: 'F32', tieWordEmbeddings: false };
  const dirQ = folder(spec);
  rewrite(dirQ, spec, (ts) => ts.map((t) => (t.name.endsWith('.bias') ? { ...t, data: new Float32Array(t.data.length) } : t)));
  const llamaSpec: RandomModelSpec = { ...spec, architecture: 'LlamaForCausalLM' };
  const dirL = folder(llamaSpec);
  const cfg = JSON.parse(fs.readFileSync(path.join(dirL, 'config.json'), 'utf8'));
  cfg.rms_norm_eps = 1e-6;
  fs.writeFileSync(path.join(dirL, 'config.json'), JSON.stringify(cfg));
  rewrite(dirL, llamaSpec, () => buildModelTensors(spec).filter((t) => !t.name.endsWith('.bias')));
  const a = ReferenceModel.load(dirQ).lastLogits(ids40);
  const b = ReferenceModel.load(dirL).lastLogits(ids40);
  assert.ok(maxRelativeDifference(a, b) < 1e-12);
  // and the biases matter when present
  const withBias = ReferenceModel.load(folder({ ...spec, dtype: 'F32' })).lastLogits(ids40);
  assert.ok(maxRelativeDifference(withBias, b) > 1e-3);
});

test('Qwen3 q/k RMSNorm makes the output invariant to scaling q_proj/k_proj; Llama is not', () => {
  const ids = ids40.slice(0, 10);
  for (const key of ['qwen3', 'llama']) {
    const spec: RandomModelSpec = { ...SMALL_SPECS[key], dtype: 'F32', sharded: false };
    const base = ReferenceModel.load(folder(spec)).lastLogits(ids);
    const dir = folder(spec);
    rewrite(dir, spec, (ts) =>
      ts.map((t) => (/[qk]_proj\.weight$/.test(t.name) ? { ...t, data: t.data.map((x) => x * 4) } : t)),
    );
    const scaled = ReferenceModel.load(dir).lastLogits(ids);
    const d = maxRelativeDifference(scaled, base);
    if (key === 'qwen3') assert.ok(d < 1e-5, `qwen3 ${d}`);
    else assert.ok(d > 1e-3, `llama ${d}`);
  }
});

test('routes: an empty route is head(norm(embed)); repeats and reorders are distinct applications', () => {
  const spec = SMALL_SPECS.qwen3;
  const dir = folder(spec);
  const ref = ReferenceModel.load(dir);
  const ids = ids40.slice(0, 8);
  const base = ref.lastLogits(ids);
  const routes = [[0, 1, 2, 3], [0, 1, 1, 2, 3], [0, 2, 3], [1, 0, 2, 3], [0, 1, 2, 3, 3], [3, 2, 1, 0]];
  const outs = routes.map((r) => ref.lastLogits(ids, { route: r }));
  assert.deepEqual(outs[0], base);
  for (let i = 1; i < outs.length; i++) assert.ok(maxRelativeDifference(outs[i], base) > 1e-3, `${routes[i]}`);
  // silencing a block that is not in the route changes nothing; silencing a repeated block differs from silencing once
  assert.deepEqual(ref.lastLogits(ids, { route: [0, 2, 3], silencedMlp: [1] }), outs[2]);
  // empty route: logits of the embeddings only
  const W = readModelWeights(dir);
  const H = spec.hiddenSize;
  const last = ids[ids.length - 1];
  const e = Array.from(W.get('model.embed_tokens.weight')!.data.subarray(last * H, (last + 1) * H));
  const nw = W.get('model.norm.weight')!.data;
  const r = 1 / Math.sqrt(e.reduce((s, a) => s + a * a, 0) / H + 1e-6);
  const emb = W.get('model.embed_tokens.weight')!.data; // tied
  const expected = Array.from({ length: spec.vocabSize }, (_, o) =>
    e.reduce((s, a, i) => s + emb[o * H + i] * a * r * nw[i], 0),
  );
  assert.ok(maxRelativeDifference(ref.lastLogits(ids, { route: [] }), expected) < 1e-12);
  const twice = ref.lastLogits(ids, { route: [0, 1, 1, 2, 3], silencedMlp: [1] });
  assert.ok(maxRelativeDifference(twice, outs[1]) > 1e-3);
});

test('skipping any block or silencing any MLP changes last-position logits clearly, for every SMALL_SPEC', () => {
  for (const [key, spec] of Object.entries(SMALL_SPECS)) {
    const ref = ReferenceModel.load(folder(spec));
    const ids = ids40.map((i) => i % spec.vocabSize);
    const base = ref.lastLogits(ids);
    const identity = Array.from({ length: spec.numBlocks }, (_, i) => i);
    for (let b = 0; b < spec.numBlocks; b++) {
      const skip = maxRelativeDifference(ref.lastLogits(ids, { route: identity.filter((x) => x !== b) }), base);
      const silence = maxRelativeDifference(ref.lastLogits(ids, { silencedMlp: [b] }), base);
      assert.ok(skip > 1e-2, `${key} skip ${b}: ${skip}`);
      assert.ok(silence > 1e-2, `${key} silence ${b}: ${silence}`);
    }
  }
});

test('sliding window: a window as long as the prompt changes nothing; a shorter one changes the last logits', () => {
  const spec = SMALL_SPECS.mistralWindow;
  const windowed = ReferenceModel.load(folder(spec));
  const ids = ids40.slice(0, 12);
  const full = ReferenceModel.load(folder({ ...spec, slidingWindow: undefined }));
  const long = ReferenceModel.load(folder({ ...spec, slidingWindow: ids.length }));
  assert.equal(windowed.config.slidingWindow, 4);
  assert.equal(full.config.slidingWindow, undefined);
  assert.ok(maxRelativeDifference(long.lastLogits(ids), full.lastLogits(ids)) < 1e-12);
  assert.ok(maxRelativeDifference(windowed.lastLogits(ids), full.lastLogits(ids)) > 1e-2);
  // Within the window the model is the unwindowed one: prompts of up to 4 tokens agree.
  assert.ok(maxRelativeDifference(windowed.lastLogits(ids.slice(0, 4)), full.lastLogits(ids.slice(0, 4))) < 1e-12);
});

test('BF16 and F16 files give logits close to the F32 file of the same spec', () => {
  const spec: RandomModelSpec = { ...SMALL_SPECS.llama, dtype: 'F32' };
  const f32 = ReferenceModel.load(folder(spec)).lastLogits(ids40);
  for (const dtype of ['BF16', 'F16'] as const) {
    const d = maxRelativeDifference(ReferenceModel.load(folder({ ...spec, dtype })).lastLogits(ids40), f32);
    assert.ok(d > 0 && d < 0.1, `${dtype}: ${d}`);
  }
});

test('greedy is argmax by full recomputation and stops after an eos id', () => {
  const ref = ReferenceModel.load(folder(SMALL_SPECS.mistral));
  const prompt = ids40.slice(0, 6);
  const out = ref.greedy(prompt, 6);
  assert.equal(out.length, 6);
  const seq = [...prompt];
  for (const t of out) {
    assert.equal(t, argmax(ref.lastLogits(seq)));
    seq.push(t);
  }
  const stopped = ref.greedy(prompt, 6, { eosIds: [out[2]] });
  assert.deepEqual(stopped, out.slice(0, out.indexOf(out[2]) + 1));
  const routed = ref.greedy(prompt, 4, { route: [0, 0, 1, 2], silencedMlp: [2] });
  assert.equal(routed[0], argmax(ref.lastLogits(prompt, { route: [0, 0, 1, 2], silencedMlp: [2] })));
});

test('bad routes and ids are rejected', () => {
  const ref = ReferenceModel.load(folder(SMALL_SPECS.mistral));
  assert.throws(() => ref.lastLogits([1, 2], { route: [0, 3] }), /out of range/);
  assert.throws(() => ref.lastLogits([1, 2], { silencedMlp: [-1] }), /out of range/);
  assert.throws(() => ref.lastLogits([1, 999]), /out of range/);
  assert.throws(() => ref.lastLogits([]), /empty/);
});

test('timing: a 4-block hidden-64 model over 40 tokens takes well under a second', () => {
  const ref = ReferenceModel.load(folder(SMALL_SPECS.llama));
  ref.lastLogits(ids40); // warm up
  const t0 = performance.now();
  ref.lastLogits(ids40);
  const ms = performance.now() - t0;
  assert.ok(ms < 500, `${ms} ms`);
});
