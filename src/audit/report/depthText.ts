/**
 * The depth-of-loss lines of a run's summary (docs/design/probes.md, "Depth of loss"): the reach curve
 * over depth with intervals, where the answers were lost, and what it cost.
 */
import type { DepthSummary, DepthTrend, Rate } from '../../contract';

const share = (r: Rate) => `${(100 * r.rate).toFixed(1)}% [${(100 * r.ci.lo).toFixed(1)}, ${(100 * r.ci.hi).toFixed(1)}] ${r.successes}/${r.n}`;
const MARK_TEXT: Record<string, string> = { '0': 'from the start', '1/4': 'from ¼', '1/2': 'from ½', '3/4': 'from ¾', 'last-line': 'from the last line break' };

/** The trend test's verdict against the constant-rate null, with what it could detect at all. */
export function depthTrendText(t: DepthTrend): string {
  const method = 'exact within-question permutation test against a constant rate at every prefix';
  if (t.minP >= 0.05) return `does reach fall with depth? too few to say: ${t.informative} question${t.informative === 1 ? '' : 's'} reached from some but not all prefixes, and even the most extreme pattern gives p = ${t.minP.toFixed(3)} (${method})`;
  const p = t.p < 0.001 ? t.p.toExponential(2) : t.p.toFixed(3);
  const verdict = t.p < 0.05 ? 'reach falls with depth' : 'no fall of reach with depth detected';
  return `${verdict}: p = ${p} over ${t.informative} informative question${t.informative === 1 ? '' : 's'} (${method}; smallest p attainable ${t.minP.toExponential(1)}; power in docs/design/statistics.md "Calibration")`;
}

export function depthLines(d: DepthSummary): string[] {
  const curve = d.curve.map((c) => `${MARK_TEXT[c.at] ?? c.at}${c.at === 'last-line' ? ` (at ${(100 * c.meanDepth).toFixed(0)}% on average)` : ''} ${share(c.reached)}`);
  const q = d.lostIn.quarter;
  const short = d.tooShort ? ` · output too short to cut (fewer than two distinct prefixes; not counted where lost): ${d.tooShort}` : '';
  return [
    `  depth of loss (${d.n} failure-set question${d.n === 1 ? '' : 's'}, ${d.budget} samples per prefix of the deployed output): reached ${curve.join(' · ')}`,
    `      lost in quarter 1: ${share(q[0])} · 2: ${share(q[1])} · 3: ${share(q[2])} · 4 or after the last prefix: ${share(q[3])} · not reached from any prefix: ${share(d.lostIn.start)}${short}`,
    `      counts, not a finding: early (first quarter) ${share(d.early)} vs late ${share(d.late)}; cost ${d.cost.generations} generations, ${d.cost.tokens} tokens, ${d.cost.blockApplications} block applications`,
    ...(d.trend ? [`      ${depthTrendText(d.trend)}`] : []),
  ];
}
