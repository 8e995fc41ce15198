/**
 * The head graph: final RMSNorm + lm_head, for one position per sequence ([B,H] → [B,V]).
 * Only the last position's logits are ever needed (forward returns them, decoding samples from
 * them), so the vocabulary matmul runs on B rows, not B·S. The lm_head matrix stays in the
 * Hugging Face [V,H] layout and is used through Gemm(transB=1), so a tied model points at the
 * very same bytes as the embedding table. With int8 weights the head gets its own quantized copy
 * (the embedding lookup stays F32).
 */
import type { ModelConfig } from '../checkpoint/config';
import { type ExternalTensorRef, ExternalDataFile, FLOAT, GraphBuilder } from './graphBuilder';
import { type GraphVariant, rmsNorm } from './blockGraph';
import { linear } from '../checkpoint/weightPrecision';

export interface HeadGraphInput {
  config: ModelConfig;
  finalNorm: Float32Array;
  /** F32 [V, H] bytes already written (f32), or the matrix itself to quantize (int8). */
  lmHead: ExternalTensorRef | Float32Array;
  data: ExternalDataFile;
  variant: GraphVariant;
}

export function buildHeadGraph({ config, finalNorm, lmHead, data, variant }: HeadGraphInput): Uint8Array {
  const H = config.hiddenSize;
  const g = new GraphBuilder('head', data);
  const hidden = g.input('hidden', FLOAT, ['batch', H]);
  const norm = g.weight('final_norm', finalNorm, [H]);
  const x = rmsNorm(g, hidden, norm, config.rmsNormEps, variant);
  if (lmHead instanceof Float32Array) {
    g.op('Identity', [linear(g, x, 'lm_head', lmHead, config.vocabSize, H, 'int8', variant.int8Path ?? 'block')], {}, ['logits']);
  } else {
    g.op('Gemm', [x, g.externalWeight('lm_head', lmHead)], { transB: 1 }, ['logits']);
  }
  g.output('logits', FLOAT, ['batch', config.vocabSize]);
  return g.toBytes();
}
