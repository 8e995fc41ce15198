/**
 * The line `report` prints for a run with an f16 KV cache: its fidelity to the f32 cache as the run
 * measured it (counts with their n, no interval: a handful of questions), or that it was not
 * measured. Nothing for an f32 run.
 */
import type { RunManifest } from '../../contract';

export function kvCacheFidelityText(engine: RunManifest['engine'] | undefined): string | undefined {
  if (engine?.kvCache !== 'f16') return undefined;
  const f = engine.kvCacheFidelity;
  if (!f) return 'KV cache f16: fidelity to the f32 cache not measured in this run (--kv-fidelity-questions 0, or a run made before it was measured)';
  const share = f.referenceTokens ? (100 * f.agreeingTokens) / f.referenceTokens : 100;
  return (
    `KV cache f16: ${f.identicalSequences}/${f.questions} questions identical to the f32 cache (greedy, at most ${f.maxNewTokens} new tokens), ` +
    `${share.toFixed(1)}% of tokens (${f.agreeingTokens}/${f.referenceTokens}) before the first divergence, ` +
    `|Δ log-prob| mean ${f.meanLogprobError.toExponential(1)}, max ${f.maxLogprobError.toExponential(1)}`
  );
}
