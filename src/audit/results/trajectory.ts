/**
 * A training trajectory (the contract's TrajectoryResult) from the checkpoints' records: per
 * checkpoint the rates of its summary (Wilson intervals; pass@1 and pass@k of the sampling probe
 * with summary.json's bootstrap intervals), between consecutive checkpoints how many questions
 * moved between realized, reachable-not-realized and unreached, and each later checkpoint's pass@k
 * against the first's at every k (the comparison's Ceilings along k).
 */
import { QUESTION_STATES, questionState, stopsAtFirstCorrect, type FlowKey, type QuestionRecord, type TrajectoryFlow, type TrajectoryPoint, type TrajectoryResult, rateOf } from '../../contract';
import { summarize } from './summary';
import { passAtKDeltas } from './passAtKDelta';

export interface TrajectoryCheckpoint {
  label: string;
  folder: string;
  records: readonly QuestionRecord[];
}

/**
 * `alongK`: also each later checkpoint's Δpass@k against the first (the Trajectory tab shows them).
 * Off for `reach-audit trajectory`, which prints none: its paired bootstraps cost about as much again
 * as the checkpoints' summaries (5 checkpoints of 300 questions at B = 16: 9 s beside 6.5 s).
 */
export function trajectory(checkpoints: readonly TrajectoryCheckpoint[], options: { alongK?: boolean } = {}): TrajectoryResult {
  const probes = [...new Set(checkpoints.flatMap((c) => c.records.flatMap((r) => Object.keys(r.reachable))))];
  const ceilingBudget = Math.max(0, ...checkpoints.flatMap((c) => c.records.map((r) => Object.values(r.probes).reduce((s, p) => s + p.budget, 0))));
  // A ceiling-only (--until-reached) checkpoint has no pass@k: the columns are left out rather than shown from partial pools.
  const partial = checkpoints.some((c) => stopsAtFirstCorrect(c.records, 'sample'));
  const passAtKProbe = probes.includes('sample') && !partial ? 'sample' : null;
  const passAtKMax = passAtKProbe ? Math.max(0, ...checkpoints.flatMap((c) => c.records.map((r) => r.probes[passAtKProbe]?.budget ?? 0))) : 0;
  const points = checkpoints.map((c): TrajectoryPoint => {
    const s = summarize(c.records);
    // Skipped questions (prompt too long, a few-shot example) were not audited: not part of n.
    const n = s.n;
    const curve = passAtKProbe ? (s.passAtK[passAtKProbe] ?? {}) : {};
    const ci = passAtKProbe ? (s.passAtKCi[passAtKProbe] ?? {}) : {};
    const k = String(passAtKMax);
    return {
      label: c.label,
      folder: c.folder,
      n,
      realized: s.realized,
      reachable: Object.fromEntries(probes.map((p) => [p, s.reachable[p] ?? rateOf(0, 0)])),
      ceiling: s.reachableAny,
      realizedNotReached: s.realizedNotReached ?? 0,
      passAt1: curve['1'] ?? null,
      passAt1Ci: curve['1'] === undefined ? null : (ci['1'] ?? null),
      passAtK: curve[k] ?? null,
      passAtKCi: curve[k] === undefined ? null : (ci[k] ?? null),
      // pass@k averages one row per audited question that ran the probe (passAtKRows): the probe's n.
      passAtKN: passAtKProbe ? (s.reachable[passAtKProbe]?.n ?? 0) : 0,
    };
  });
  const flows: TrajectoryFlow[] = [];
  for (let i = 1; i < checkpoints.length; i++) {
    const before = new Map(checkpoints[i - 1].records.filter((r) => !r.skipped).map((r) => [r.id, questionState(r)]));
    const counts = {} as Record<FlowKey, number>;
    const ids = {} as Record<FlowKey, string[]>;
    for (const a of QUESTION_STATES) for (const b of QUESTION_STATES) {
      counts[`${a}->${b}`] = 0;
      ids[`${a}->${b}`] = [];
    }
    let n = 0;
    for (const r of checkpoints[i].records) {
      if (r.skipped) continue;
      const from = before.get(r.id);
      if (from === undefined) continue;
      const key: FlowKey = `${from}->${questionState(r)}`;
      counts[key]++;
      ids[key].push(r.id);
      n++;
    }
    flows.push({ from: checkpoints[i - 1].label, to: checkpoints[i].label, n, counts, ids });
  }
  const result: TrajectoryResult = { probes, ceilingBudget, passAtKProbe, passAtKMax, points, flows };
  if (options.alongK) {
    const [first, ...later] = checkpoints;
    result.passAtKDeltas = later.map((c) => ({ label: c.label, base: first.label, curves: passAtKDeltas(first.records, c.records) }));
  }
  return result;
}
