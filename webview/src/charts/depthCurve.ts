/**
 * The Charts tab's reach-over-depth curve (summary.json `depth`): its points (x: the prefix's mean
 * share of the deployed output, y: the share of the failure set reached from it, with its Wilson
 * interval) and the sentence that stands for the chart for screen readers. DOM-free.
 */
import type { DepthSummary } from '../../../src/contract';
import { depthMarkText } from '../common/depthMarkText';

export interface DepthCurvePoint {
  label: string;
  x: number;
  y: number;
  low: number;
  high: number;
  successes: number;
  n: number;
}

/** The marks some question had (n > 0), in order of mean depth. */
export function depthCurvePoints(depth: DepthSummary): DepthCurvePoint[] {
  return depth.curve
    .filter((c) => c.reached.n > 0)
    .map((c) => ({ label: depthMarkText(c.at), x: c.meanDepth, y: c.reached.rate, low: c.reached.ci.lo, high: c.reached.ci.hi, successes: c.reached.successes, n: c.reached.n }))
    .sort((a, b) => a.x - b.x);
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

/** The chart in words: each point with its interval and n, then early vs late. */
export function depthCurveText(depth: DepthSummary): string {
  const points = depthCurvePoints(depth).map((p) => `from ${p.label} (${pct(p.x)} deep on average) ${pct(p.y)} [${pct(p.low)}, ${pct(p.high)}], ${p.successes} of ${p.n}`);
  return `Reach over depth of the deployed output, ${depth.n} failure-set questions, ${depth.budget} continuations per mark: ${points.join('; ')}. Lost in the first quarter: ${depth.early.successes} of ${depth.early.n}; later: ${depth.late.successes} of ${depth.late.n}.`;
}
