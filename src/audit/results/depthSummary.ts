/**
 * Depth of loss over a run (docs/design/probes.md, "Depth of loss"): from the records' depth results, the
 * reach curve over depth (each mark's share of failure-set questions reached from that prefix,
 * with its Wilson interval) and where the answers were lost — from the start, or in which quarter
 * of the deployed output — with the first quarter (early) against the rest (late). Outputs too
 * short to cut count in n and in the curve (their empty prefix was resampled) but not in where
 * answers were lost, which they cannot say.
 */
import { depthTrend } from './depthTrend';
import { DEPTH_MARKS, rateOf, type Budget, type DepthResult, type DepthSummary, type QuestionRecord } from '../../contract';

export function depthSummary(records: readonly QuestionRecord[]): DepthSummary | undefined {
  const results = records.flatMap((r): DepthResult[] => (r.depth ? [r.depth] : []));
  if (results.length === 0) return undefined;
  const n = results.length;
  const curve = DEPTH_MARKS.flatMap((at) => {
    const here = results.flatMap((d) => d.points.filter((p) => p.at === at).map((p) => ({ p, d })));
    if (here.length === 0) return [];
    const meanDepth = here.reduce((s, { p, d }) => s + (d.outputTokens > 0 ? p.tokens / d.outputTokens : 0), 0) / here.length;
    return [{ at, reached: rateOf(here.filter(({ p }) => p.reached).length, here.length), meanDepth }];
  });
  const count = (lost: DepthResult['lostIn']) => results.filter((d) => d.lostIn === lost).length;
  const tooShort = count('too-short');
  const cut = n - tooShort;
  const quarter = ([1, 2, 3, 4] as const).map((q) => rateOf(count(q), cut)) as [ReturnType<typeof rateOf>, ReturnType<typeof rateOf>, ReturnType<typeof rateOf>, ReturnType<typeof rateOf>];
  const cost: Budget = { generations: 0, tokens: 0, blockApplications: 0 };
  for (const d of results) {
    cost.generations += d.cost.generations;
    cost.tokens += d.cost.tokens;
    cost.blockApplications += d.cost.blockApplications;
  }
  return {
    n,
    budget: results[0].budget,
    curve,
    lostIn: { start: rateOf(count('start'), cut), quarter },
    ...(tooShort > 0 ? { tooShort } : {}),
    early: rateOf(count(1), cut),
    late: rateOf(count(2) + count(3) + count(4), cut),
    cost,
    trend: depthTrend(results.map((d) => d.points.map((p) => p.reached))),
  };
}
