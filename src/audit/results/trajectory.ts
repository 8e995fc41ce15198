/**
 * A training trajectory: checkpoints in training order, each audited with the same settings; per
 * checkpoint the realized rate, each probe's reachable rate and the any-probe ceiling (Wilson
 * intervals), pass@1 vs pass@k of the sampling probe, and between consecutive checkpoints how many
 * questions moved between realized, reachable-not-realized and unreached.
 */
import { questionState, type QuestionRecord } from '../../contract';
import { rateOf, type Rate } from './stats';
import { summarize } from './summary';

export interface TrajectoryCheckpoint {
  label: string;
  folder: string;
  records: readonly QuestionRecord[];
}

export interface TrajectoryPoint {
  label: string;
  folder: string;
  n: number;
  realized: Rate;
  reachable: Record<string, Rate>;
  ceiling: Rate;
  passAt1: number | null;
  passAtK: number | null;
}

type State = 'realized' | 'reachable' | 'unreached';
export type FlowKey = `${State}->${State}`;

export interface TrajectoryFlow {
  from: string;
  to: string;
  /** Questions present in both checkpoints. */
  n: number;
  counts: Record<FlowKey, number>;
  /** The question ids of each move, for "show the questions that moved at this step". */
  ids: Record<FlowKey, string[]>;
}

export interface TrajectoryResult {
  probes: string[];
  /** Generations per question behind the ceiling: the probes' budgets together. */
  ceilingBudget: number;
  passAtKProbe: string | null;
  passAtKMax: number;
  points: TrajectoryPoint[];
  flows: TrajectoryFlow[];
}

const STATES: State[] = ['realized', 'reachable', 'unreached'];

export function trajectory(checkpoints: readonly TrajectoryCheckpoint[]): TrajectoryResult {
  const probes = [...new Set(checkpoints.flatMap((c) => c.records.flatMap((r) => Object.keys(r.reachable))))];
  const ceilingBudget = Math.max(0, ...checkpoints.flatMap((c) => c.records.map((r) => Object.values(r.probes).reduce((s, p) => s + p.budget, 0))));
  const passAtKProbe = probes.includes('sample') ? 'sample' : null;
  const passAtKMax = passAtKProbe ? Math.max(0, ...checkpoints.flatMap((c) => c.records.map((r) => r.probes[passAtKProbe]?.budget ?? 0))) : 0;
  const points = checkpoints.map((c): TrajectoryPoint => {
    const s = summarize(c.records);
    const n = c.records.length;
    const curve = passAtKProbe ? s.passAtK[passAtKProbe] ?? {} : {};
    return {
      label: c.label,
      folder: c.folder,
      n,
      realized: s.realized,
      reachable: Object.fromEntries(probes.map((p) => [p, s.reachable[p] ?? rateOf(0, 0)])),
      ceiling: s.reachableAny,
      passAt1: curve['1'] ?? null,
      passAtK: curve[String(passAtKMax)] ?? null,
    };
  });
  const flows: TrajectoryFlow[] = [];
  for (let i = 1; i < checkpoints.length; i++) {
    const before = new Map(checkpoints[i - 1].records.map((r) => [r.id, questionState(r)]));
    const counts = {} as Record<FlowKey, number>;
    const ids = {} as Record<FlowKey, string[]>;
    for (const a of STATES) for (const b of STATES) {
      counts[`${a}->${b}`] = 0;
      ids[`${a}->${b}`] = [];
    }
    let n = 0;
    for (const r of checkpoints[i].records) {
      const from = before.get(r.id);
      if (from === undefined) continue;
      const key: FlowKey = `${from}->${questionState(r)}`;
      counts[key]++;
      ids[key].push(r.id);
      n++;
    }
    flows.push({ from: checkpoints[i - 1].label, to: checkpoints[i].label, n, counts, ids });
  }
  return { probes, ceilingBudget, passAtKProbe, passAtKMax, points, flows };
}
