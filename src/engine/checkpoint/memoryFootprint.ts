/**
 * What a loaded model holds in memory, read from the weight files' headers alone: the engine
 * decodes every tensor to float32, so its weights take 4 bytes per parameter whatever the stored
 * dtype (measured peak: 1.17× that plus the KV cache on the Qwen2.5-0.5B shape).
 */
import type { ModelConfig } from './config';
import { elementCount, openWeights } from './safetensors';
import { INT8_BLOCK, type Int8Path, type WeightPrecision } from './weightPrecision';
import { numericsPlatform } from '../platform/numericsPlatform';

export function modelFloatBytes(dir: string): number {
  const store = openWeights(dir);
  try {
    let parameters = 0;
    for (const t of store.tensors.values()) parameters += elementCount(t.shape);
    return 4 * parameters;
  } finally {
    store.close();
  }
}

/**
 * The weights the engine's graphs hold once loaded (blockGraph.ts, headGraph.ts), from the config:
 * per block the two norms, the q/k/v projections (and their bias, q/k norms where the architecture
 * has them), o, gate/up and down; the head's final norm and lm_head. A projection is float32, or
 * under int8 one byte per weight plus float32 scales (weightPrecision.ts): on the block path rows
 * padded to blocks of 32 and a scale per block, on the row path a scale per output and the
 * activations' one-byte zero point (this processor's path unless one is given). The embedding table is left out: lookups read its rows from disk
 * (embeddingTable.ts), so it sits in the page cache, not in the process.
 */
export function loadedWeightBytes(config: Pick<ModelConfig, 'numBlocks' | 'hiddenSize' | 'intermediateSize' | 'numHeads' | 'numKvHeads' | 'headDim' | 'vocabSize' | 'qkvBias' | 'qkNorm'>, precision: WeightPrecision, int8Path: Int8Path = numericsPlatform().int8Path ?? 'block'): number {
  const { numBlocks, hiddenSize: H, intermediateSize: I, numHeads, numKvHeads, headDim: D, vocabSize: V } = config;
  const projection = (N: number, K: number) => (precision === 'f32' ? 4 * N * K : int8Path === 'row' ? N * K + 4 * N + 1 : N * Math.ceil(K / INT8_BLOCK) * (INT8_BLOCK + 4));
  const qkvOut = (numHeads + 2 * numKvHeads) * D;
  const block =
    4 * 2 * H +
    projection(qkvOut, H) +
    (config.qkvBias ? 4 * qkvOut : 0) +
    (config.qkNorm ? 4 * 2 * D : 0) +
    projection(H, numHeads * D) +
    projection(2 * I, H) +
    projection(H, I);
  return numBlocks * block + 4 * H + projection(V, H);
}
