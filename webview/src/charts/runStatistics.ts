/**
 * The numbers the charts draw, computed from the records the panel holds, so a run that is still
 * going shows live numbers and every number comes with its n and a 95% interval. The finished
 * run's summary.json (from src/audit) gives the same rates; the identified block's held-out repair
 * rate is only in the summary, and the headline takes it from there. DOM-free.
 */
import { passAtKRows, rateOf, stopsAtFirstCorrect, runRates, zeroOnePassAtKInterval, type PassAtKKind, type Rate, type RunManifest, type RunRates, RATE_MIN_QUESTIONS } from '../../../src/contract';
import type { LivePassAtKPoint } from './passAtKInterval';
import { Flag, type QuestionRow } from '../questions/questionRow';

/** Per question and probe: the budget, the attempts made and how many were right. */
function perProbeCounts(rows: readonly QuestionRow[]): RunStatistics['perProbe'] {
  const out: RunStatistics['perProbe'] = [];
  for (const row of rows) {
    for (const [probe, result] of Object.entries(row.record.probes ?? {})) {
      const attempts = Array.isArray(result?.attempts) ? result.attempts : [];
      out.push({ id: row.id, probe, budget: Math.max(result?.budget ?? 0, attempts.length), made: attempts.length, right: attempts.filter((a) => a?.correct === true).length });
    }
  }
  return out;
}

export interface StateBar {
  key: string;
  label: string;
  value: Rate;
}

export interface BlockRate {
  block: number;
  repair: Rate;
  damage: Rate;
}

export interface RunStatistics {
  n: number;
  /** The headline rates, by the contract's runRates: what summary.json and the Runs view give for these records. */
  rates: RunRates;
  states: StateBar[];
  reachableByProbe: { probe: string; value: Rate }[];
  blind: { probe: string; selector: string; value: Rate }[];
  /**
   * Per probe: pass@k for k = 1..budget, the mean over questions of the contract's passAtKRows (as
   * summary.json), with Wilson's interval where every value is 0 or 1; the others' intervals are
   * summary.json's (passAtKInterval.ts).
   */
  passAtK: { probe: string; kind: PassAtKKind; points: LivePassAtKPoint[] }[];
  /** Probes whose attempts stopped at each question's first correct one (--until-reached): no pass@k or blind picks. */
  untilReached: string[];
  /** Per probe: share of questions with a correct answer among the first b attempts, b = 1..budget. */
  foundWithin: { probe: string; points: (Rate & { b: number })[] }[];
  numBlocks: number;
  byBlock: BlockRate[];
  /** Failure-set questions with repair data, for the question × block heatmap. */
  heatmapRows: QuestionRow[];
  /** Runs of fewer than RATE_MIN_QUESTIONS: per question and probe, attempts right of the budget (empty otherwise). */
  perProbe: { id: string; probe: string; budget: number; made: number; right: number }[];
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

export function computeStatistics(allRows: readonly QuestionRow[], probes: readonly string[], numBlocks: number): RunStatistics {
  // Skipped questions are not in n (as in summary.json): nothing was generated for them.
  const rows = allRows.filter((row) => (row.flags & Flag.notAudited) === 0);
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

  const untilReached = probes.filter((probe) => stopsAtFirstCorrect(rows.map((row) => row.record), probe));
  const states: StateBar[] = [
    { key: 'realized', label: 'Realized', value: rateOf(realized, n) },
    { key: 'reachable', label: 'Reachable (any probe)', value: rateOf(anyReachable, n) },
    { key: 'failureSet', label: 'Reachable, not realized', value: rateOf(failureSet, n) },
    { key: 'blind', label: 'Blind-selectable', value: rateOf(blindAny, n) },
    { key: 'repaired', label: 'Repaired by a block', value: rateOf(repairedAny, n) },
    { key: 'unreached', label: 'Unreached', value: rateOf(unreached, n) },
    // A ceiling-only run made no blind picks from its probes: no bar rather than a 0% that was never measured.
  ].filter((bar) => bar.key !== 'blind' || untilReached.length === 0);

  const passCurves: RunStatistics['passAtK'] = [];
  const foundWithin: RunStatistics['foundWithin'] = [];
  const records = rows.map((row) => row.record);
  for (const probe of probes) {
    // The contract's pass@k rows, the very numbers summary.json's curve averages. A record without
    // this probe's verdicts (one the panel got incomplete) is left out, as the summary leaves it.
    const ran = records.filter((r) => Array.isArray(r.probes?.[probe]?.correct));
    const { kind, budget, rows: perQuestion } = passAtKRows(ran, probe);
    const m = perQuestion.length;
    if (m === 0) continue;
    const firstCorrect = ran.map((r) => r.probes[probe].correct.indexOf(true));
    const points: RunStatistics['passAtK'][number]['points'] = [];
    const found: RunStatistics['foundWithin'][number]['points'] = [];
    const values = new Array<number>(m);
    for (let k = 1; k <= budget; k++) {
      let within = 0;
      let sum = 0;
      for (let q = 0; q < m; q++) {
        values[q] = perQuestion[q][k - 1];
        sum += values[q];
        if (firstCorrect[q] >= 0 && firstCorrect[q] < k) within++;
      }
      const zeroOne = zeroOnePassAtKInterval(values);
      points.push({ k, mean: sum / m, n: m, ...(zeroOne ? { zeroOne } : {}) });
      found.push({ b: k, ...rateOf(within, m) });
    }
    passCurves.push({ probe, kind, points });
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
      byBlock.push({ block, repair: rateOf(repairedCount[block], failureScanned[block]), damage: rateOf(damagedCount[block], realizedScanned[block]) });
    }
  }

  return {
    n,
    rates: runRates(records),
    states,
    reachableByProbe: probes.map((probe) => ({ probe, value: rateOf(reachable.get(probe) ?? 0, n) })),
    blind: [...blind.values()].map((b) => ({ probe: b.probe, selector: b.selector, value: rateOf(b.correct, b.n) })),
    passAtK: passCurves,
    untilReached,
    foundWithin,
    numBlocks,
    byBlock,
    heatmapRows,
    perProbe: n < RATE_MIN_QUESTIONS ? perProbeCounts(rows) : [],
  };
}
