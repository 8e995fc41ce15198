/**
 * The numbers the charts draw, computed from the records the panel holds, so a run that is still
 * going shows live numbers and every number comes with its n and a 95% interval. The finished
 * run's summary.json (from src/audit) gives the same rates; the identified block's held-out repair
 * rate is only in the summary, and the headline takes it from there. DOM-free.
 */
import { meanInterval, passAtK, type MeanWithInterval } from './passAtK';
import type { RunManifest } from './protocol';
import { Flag, type QuestionRow } from './questionState';
import { wilson, type Proportion } from './wilson';

export interface StateBar {
  key: string;
  label: string;
  value: Proportion;
}

export interface BlockRate {
  block: number;
  repair: Proportion;
  damage: Proportion;
}

export interface RunStatistics {
  n: number;
  states: StateBar[];
  reachableByProbe: { probe: string; value: Proportion }[];
  blind: { probe: string; selector: string; value: Proportion }[];
  /** Per probe: pass@k for k = 1..budget (mean of per-question unbiased estimates). */
  passAtK: { probe: string; points: (MeanWithInterval & { k: number })[] }[];
  /** Per probe: share of questions with a correct answer among the first b attempts, b = 1..budget. */
  foundWithin: { probe: string; points: (Proportion & { b: number })[] }[];
  numBlocks: number;
  byBlock: BlockRate[];
  /** Failure-set questions with repair data, for the question × block heatmap. */
  heatmapRows: QuestionRow[];
}

/** Blocks in the model: from the manifest, else the largest block index seen in routes or repair data. */
export function countBlocks(manifest: RunManifest | undefined, rows: readonly QuestionRow[]): number {
  const declared = manifest?.model?.numBlocks;
  if (typeof declared === 'number' && Number.isInteger(declared) && declared > 0) return declared;
  let max = -1;
  for (const row of rows) {
    const repair = row.record.repair?.correctBySilencedBlock;
    if (repair) for (const key of Object.keys(repair)) max = Math.max(max, Number(key) | 0);
    const probes = row.record.probes;
    if (probes) {
      for (const probe of Object.values(probes)) {
        for (const attempt of probe?.attempts ?? []) for (const b of attempt?.route ?? []) max = Math.max(max, b);
      }
    }
    // Routes repeat the same block range in every record: the first records with data are enough.
    if (max >= 0 && row.index > 50) break;
  }
  return max + 1;
}

export function computeStatistics(rows: readonly QuestionRow[], probes: readonly string[], numBlocks: number): RunStatistics {
  const n = rows.length;
  let realized = 0;
  let anyReachable = 0;
  let failureSet = 0;
  let blindAny = 0;
  let repairedAny = 0;
  let unreached = 0;
  const reachable = new Map<string, number>();
  const blind = new Map<string, { probe: string; selector: string; correct: number; n: number }>();
  for (const row of rows) {
    if (row.flags & Flag.realized) realized++;
    if (row.flags & Flag.reachable) anyReachable++;
    if (row.flags & Flag.failureSet) failureSet++;
    if (row.flags & Flag.blind) blindAny++;
    if (row.flags & Flag.repaired) repairedAny++;
    if (row.flags & Flag.unreached) unreached++;
    for (const p of row.reachableBy) reachable.set(p, (reachable.get(p) ?? 0) + 1);
    const b = row.record.blind;
    if (b) {
      for (const [probe, selectors] of Object.entries(b)) {
        for (const [selector, pick] of Object.entries(selectors ?? {})) {
          const key = `${probe}/${selector}`;
          const entry = blind.get(key) ?? { probe, selector, correct: 0, n: 0 };
          entry.n++;
          if (pick?.correct === true) entry.correct++;
          blind.set(key, entry);
        }
      }
    }
  }

  const states: StateBar[] = [
    { key: 'realized', label: 'Realized', value: wilson(realized, n) },
    { key: 'reachable', label: 'Reachable (any probe)', value: wilson(anyReachable, n) },
    { key: 'failureSet', label: 'Reachable, not realized', value: wilson(failureSet, n) },
    { key: 'blind', label: 'Blind-selectable', value: wilson(blindAny, n) },
    { key: 'repaired', label: 'Repaired by a block', value: wilson(repairedAny, n) },
    { key: 'unreached', label: 'Unreached', value: wilson(unreached, n) },
  ];

  const passCurves: RunStatistics['passAtK'] = [];
  const foundWithin: RunStatistics['foundWithin'] = [];
  for (const probe of probes) {
    // Per question: attempts, correct attempts, and the first correct attempt (for "within b").
    const attempts: number[] = [];
    const corrects: number[] = [];
    const firstCorrect: number[] = [];
    let budget = Infinity;
    for (const row of rows) {
      const result = row.record.probes?.[probe];
      if (!result) continue;
      const correct = Array.isArray(result.correct) && result.correct.length > 0 ? result.correct : (result.attempts ?? []).map((a) => a?.correct === true);
      if (correct.length === 0) continue;
      let c = 0;
      let first = Infinity;
      for (let i = 0; i < correct.length; i++) {
        if (correct[i] === true) {
          c++;
          if (first === Infinity) first = i;
        }
      }
      attempts.push(correct.length);
      corrects.push(c);
      firstCorrect.push(first);
      budget = Math.min(budget, correct.length);
    }
    const m = attempts.length;
    if (m === 0 || !Number.isFinite(budget)) continue;
    const points: RunStatistics['passAtK'][number]['points'] = [];
    const found: RunStatistics['foundWithin'][number]['points'] = [];
    const values = new Float64Array(m);
    for (let k = 1; k <= budget; k++) {
      let within = 0;
      for (let q = 0; q < m; q++) {
        values[q] = passAtK(attempts[q], corrects[q], k);
        if (firstCorrect[q] < k) within++;
      }
      points.push({ k, ...meanInterval(values) });
      found.push({ b: k, ...wilson(within, m) });
    }
    passCurves.push({ probe, points });
    foundWithin.push({ probe, points: found });
  }

  // One pass over the repair scans: per block, failure-set questions repaired and realized ones broken.
  const repairedCount = new Array<number>(numBlocks).fill(0);
  const failureScanned = new Array<number>(numBlocks).fill(0);
  const damagedCount = new Array<number>(numBlocks).fill(0);
  const realizedScanned = new Array<number>(numBlocks).fill(0);
  const heatmapRows: QuestionRow[] = [];
  for (const row of rows) {
    const repair = row.record.repair;
    const map = repair?.correctBySilencedBlock;
    if (!map) continue;
    const inF = repair.inFailureSet === true;
    const isRealized = (row.flags & Flag.realized) !== 0;
    if (inF) heatmapRows.push(row);
    else if (!isRealized) continue;
    for (const key in map) {
      const block = Number(key);
      if (!(block >= 0 && block < numBlocks)) continue;
      if (inF) {
        failureScanned[block]++;
        if (map[key] === true) repairedCount[block]++;
      } else {
        realizedScanned[block]++;
        if (map[key] === false) damagedCount[block]++;
      }
    }
  }
  const byBlock: BlockRate[] = [];
  for (let block = 0; block < numBlocks; block++) {
    if (failureScanned[block] + realizedScanned[block] > 0) {
      byBlock.push({ block, repair: wilson(repairedCount[block], failureScanned[block]), damage: wilson(damagedCount[block], realizedScanned[block]) });
    }
  }

  return {
    n,
    states,
    reachableByProbe: probes.map((probe) => ({ probe, value: wilson(reachable.get(probe) ?? 0, n) })),
    blind: [...blind.values()].map((b) => ({ probe: b.probe, selector: b.selector, value: wilson(b.correct, b.n) })),
    passAtK: passCurves,
    foundWithin,
    numBlocks,
    byBlock,
    heatmapRows,
  };
}
