/**
 * Does reach fall with depth? (docs/design/probes.md, "Depth of loss".) Under the null "the same success
 * rate at every prefix of a question" (a constant-rate null; the rate may differ between questions),
 * which of a question's prefixes were reached is exchangeable across its prefixes: given that m of
 * its P prefixes were reached, every set of m prefixes is equally likely. The statistic is the sum,
 * over questions, of the depth ranks (0 = the start) of the reached prefixes; reach falling with
 * depth makes it small. Its null distribution is exact: each question's sum of m ranks drawn without
 * replacement, convolved over the questions. A question reached from none or all of its prefixes
 * carries no information and is left out. "Early vs late" counts alone cannot tell this apart: with
 * the same rate everywhere, a low rate puts most questions at "not reached from any prefix" and a
 * high one most at "late".
 */
import type { DepthTrend } from '../../contract';

/** The null distribution of the rank sum of `m` of `p` positions drawn without replacement (index = sum). */
function rankSumDistribution(p: number, m: number): Float64Array {
  // ways[j][s]: subsets of size j with rank sum s, over the positions seen so far.
  const top = (p * (p - 1)) / 2;
  let ways = Array.from({ length: m + 1 }, () => new Float64Array(top + 1));
  ways[0][0] = 1;
  for (let rank = 0; rank < p; rank++) {
    const next = ways.map((w) => Float64Array.from(w));
    for (let j = 1; j <= m; j++) for (let s = rank; s <= top; s++) next[j][s] += ways[j - 1][s - rank];
    ways = next;
  }
  const total = ways[m].reduce((a, b) => a + b, 0);
  return ways[m].map((w) => w / total);
}

function convolve(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length - 1);
  for (let i = 0; i < a.length; i++) if (a[i] !== 0) for (let j = 0; j < b.length; j++) out[i + j] += a[i] * b[j];
  return out;
}

/**
 * The one-sided exact test of "reach falls with depth" over questions' reach sequences (each in
 * depth order, `true` = reached from that prefix): its p, and the smallest p these questions could
 * give at all (every reached prefix the earliest), which says whether the test had any power.
 */
export function depthTrend(sequences: readonly (readonly boolean[])[]): DepthTrend {
  let dist: Float64Array = Float64Array.of(1);
  let observed = 0;
  let extreme = 0;
  let informative = 0;
  for (const seq of sequences) {
    const m = seq.filter(Boolean).length;
    if (m === 0 || m === seq.length) continue;
    informative++;
    dist = convolve(dist, rankSumDistribution(seq.length, m));
    seq.forEach((reached, rank) => {
      if (reached) observed += rank;
    });
    extreme += (m * (m - 1)) / 2;
  }
  const below = (s: number) => Math.min(1, dist.subarray(0, s + 1).reduce((a, b) => a + b, 0));
  if (informative === 0) return { informative, p: 1, minP: 1 };
  return { informative, p: below(observed), minP: below(extreme) };
}
