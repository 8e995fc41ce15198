/**
 * A small model whose activations overflow float32 on one token only, with every weight finite
 * (so the load-time weight check passes): block 0's attention reads a value only from dimension 0
 * of the residual stream, which only the poison token's embedding sets, and its value and output
 * projections are scaled so that any position attending to that token overflows to ±Infinity.
 * Every other input runs normally. The head never chooses the poison token greedily (its lm_head
 * row is zero while others are not), unless `generatePoison` makes every logit zero, so that greedy
 * decoding emits token 0 (then the poison) as its first token.
 */
import * as path from 'node:path';
import { SMALL_SPECS, type WrittenModel, buildModelTensors, writeRandomModel, writeWeights } from './modelFolder';

export function writeOverflowingModel(dir: string, poison: number, options: { generatePoison?: boolean } = {}): WrittenModel {
  const spec = SMALL_SPECS.llama;
  const written = writeRandomModel(dir, spec);
  const h = spec.hiddenSize;
  const tensors = buildModelTensors(spec);
  const get = (name: string) => {
    const t = tensors.find((x) => x.name === name);
    if (!t) throw new Error(`no tensor ${name}`);
    return t.data;
  };
  const embed = get('model.embed_tokens.weight');
  for (let t = 0; t < spec.vocabSize; t++) embed[t * h] = t === poison ? 1 : 0;
  // Blocks never write dimension 0, so it stays 0 wherever the poison token is not attended to.
  for (let l = 0; l < spec.numBlocks; l++) {
    for (const name of ['self_attn.o_proj.weight', 'mlp.down_proj.weight']) {
      const w = get(`model.layers.${l}.${name}`);
      w.fill(0, 0, w.length / h);
    }
  }
  const v = get('model.layers.0.self_attn.v_proj.weight');
  const rows = v.length / h;
  for (let r = 0; r < rows; r++) for (let c = 0; c < h; c++) v[r * h + c] = c === 0 ? 1e20 : 0;
  const o = get('model.layers.0.self_attn.o_proj.weight');
  for (let i = o.length / h; i < o.length; i++) o[i] *= 1e21;
  const head = get('lm_head.weight');
  if (options.generatePoison) head.fill(0);
  else head.fill(0, poison * h, (poison + 1) * h);
  writeWeights(dir, tensors, false);
  return { ...written, dir: path.resolve(dir) };
}
