/**
 * The attention graph reads the key cache in place: past_k enters the score GEMM as its first
 * operand, never through a Transpose (onnxruntime fuses such a Transpose into the GEMM, and MLAS
 * then packs the whole cache transposed on every call, a copy that grows with context × batch).
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { onnx } from 'onnx-proto';
import { FLOAT, GraphBuilder } from '../../../src/engine/graphs/graphBuilder';
import { groupedAttention } from '../../../src/engine/graphs/attentionGraph';

function attentionNodes(): onnx.INodeProto[] {
  const g = new GraphBuilder('attention', null);
  const [NH, KV, Dp] = [14, 2, 64];
  const x = {
    q: g.input('q', FLOAT, ['batch', 'new', NH * Dp]),
    k: g.input('k', FLOAT, ['batch', 'new', KV * Dp]),
    v: g.input('v', FLOAT, ['batch', 'new', KV * Dp]),
    pastK: g.input('past_k', FLOAT, ['batch', KV, 'capacity', Dp]),
    pastV: g.input('past_v', FLOAT, ['batch', KV, 'capacity', Dp]),
    mask: g.input('mask', FLOAT, ['batch', 1, 1, 'new', 'all']),
  };
  g.output(groupedAttention(g, x, { numHeads: NH, kvHeads: KV, headSize: Dp, scale: 0.125 }), FLOAT, ['batch', 'new', NH * Dp]);
  return onnx.ModelProto.decode(g.toBytes()).graph?.node ?? [];
}

describe('attention graph', () => {
  it('feeds the key and value caches to their GEMMs as they are stored', () => {
    const nodes = attentionNodes();
    for (const cache of ['past_k', 'past_v']) {
      const readers = nodes.filter((n) => (n.input ?? []).includes(cache)).map((n) => n.opType);
      assert.deepEqual(readers.filter((op) => op !== 'Shape'), ['MatMul'], `${cache} is read by ${readers.join(', ')}`);
    }
    const scoreGemm = nodes.find((n) => n.opType === 'MatMul' && n.input?.includes('past_k'));
    assert.equal(scoreGemm?.input?.[0], 'past_k', 'the key cache is the score GEMM\'s A operand (read in place, not packed)');
  });
});
