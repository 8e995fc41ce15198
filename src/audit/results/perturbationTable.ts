/**
 * The perturbation probe beside sampling and random routes (docs/design/probes.md, "Perturbation probe"),
 * one row per run that ran it with at least one of the two: on the gain set (the audited questions
 * the deployment does not realize, the only ones a probe can add), each probe's reach within its
 * first k attempts, k the smallest budget among them, so the generations are matched; the tokens
 * and block applications each spent per generation beside it; the answer-blind picks over each
 * probe's candidates; and how much the sets of questions the probes reach overlap (Jaccard, with an
 * interval when the union of the questions either reaches holds at least JACCARD_MIN_UNION).
 *
 * The Jaccard interval: for questions drawn independently, each question in the union A ∪ B is in
 * A ∩ B with probability J, so given the union's size u the count in both is Binomial(u, J) and
 * Wilson's score interval on both / u is an interval for J. The union, not the gain set, is the
 * sample: a gain set of 300 with a union of 1 is one observation (J 1 [1.00, 1.00] from a bootstrap
 * of it said nothing). test/calibration measures its coverage.
 */
import { rateOf, wilsonInterval, type QuestionRecord, type Rate } from '../../contract';
import type { RunForTables } from './tables';

/** The probes the perturbation probe is set against, in the table's order. */
export const PERTURBATION_PEERS = ['sample', 'routes'] as const;
/** Below this many questions in the union the overlap is given as counts only ("too few to say"). */
export const JACCARD_MIN_UNION = 20;

export interface ProbeOnGainSet {
  probe: string;
  /** The probe's budget B in the run. */
  budget: number;
  /** Gain-set questions reached within the first k attempts (k = the row's `attempts`). */
  reached: Rate;
  /** Answer-blind picks over the probe's whole pool (only when k = B: a pool cut to k was never selected from). */
  blind: Record<string, Rate> | null;
  /** Spent on the gain set by the whole budget, per generation. */
  perGeneration: { tokens: number; blockApplications: number };
  generations: number;
}

export interface ProbeOverlap {
  a: string;
  b: string;
  both: number;
  onlyA: number;
  onlyB: number;
  /** |A ∩ B| / |A ∪ B|; null when neither reaches a gain-set question. */
  jaccard: number | null;
  /** Wilson 95% interval of both / union; null with `why` when not computed. */
  interval: { lo: number; hi: number } | null;
  why?: string;
}

export interface PerturbationRow {
  folder: string;
  model: string;
  dataset: string;
  finished: boolean;
  /** Audited questions that ran every probe of the row. */
  audited: number;
  /** Of them, not realized: the gain set (n of every rate below). */
  gainSet: number;
  /** k: attempts per question compared (the smallest budget among the row's probes). */
  attempts: number;
  probes: ProbeOnGainSet[];
  overlaps: ProbeOverlap[];
}

export interface PerturbationTable {
  rule: string;
  rows: PerturbationRow[];
  missing: { folder: string; reason: string }[];
}

const RULE = [
  'gain set = audited questions the deployment does not realize; each probe reaches a question when one of its first k attempts is correct, k the smallest budget among the probes compared (matched generations); reach has a Wilson 95% interval',
  'tokens and block applications are what each probe spent on the gain set per generation (block applications = route length × tokens processed)',
  `overlap: Jaccard |A ∩ B| / |A ∪ B| of the gain-set questions two probes reach, with a Wilson 95% interval of both / union (calibration row "Jaccard (Wilson on the union)") when the union has at least ${JACCARD_MIN_UNION} questions; below that counts only (too few to say)`,
  'answer-blind picks count only when k equals the probe\'s budget',
].join('; ');

function reachedWithin(r: QuestionRecord, probe: string, k: number): boolean {
  return r.probes[probe].correct.slice(0, k).some(Boolean);
}

/** The Wilson 95% interval of the Jaccard index from the counts in both and in the union. */
export function jaccardInterval(both: number, union: number): { lo: number; hi: number } {
  return wilsonInterval(both, union);
}

export function overlapOf(a: string, b: string, reachedA: readonly boolean[], reachedB: readonly boolean[]): ProbeOverlap {
  let both = 0;
  let onlyA = 0;
  let onlyB = 0;
  reachedA.forEach((x, i) => {
    if (x && reachedB[i]) both++;
    else if (x) onlyA++;
    else if (reachedB[i]) onlyB++;
  });
  const union = both + onlyA + onlyB;
  const jaccard = union === 0 ? null : both / union;
  const base = { a, b, both, onlyA, onlyB, jaccard };
  if (jaccard === null) return { ...base, interval: null, why: 'neither probe reaches a gain-set question' };
  if (union < JACCARD_MIN_UNION) return { ...base, interval: null, why: `too few to say: ${union} question${union === 1 ? '' : 's'} reached by either < ${JACCARD_MIN_UNION}` };
  return { ...base, interval: jaccardInterval(both, union) };
}

function probeOnGainSet(gain: readonly QuestionRecord[], probe: string, k: number): ProbeOnGainSet {
  const budget = gain.length > 0 ? gain[0].probes[probe].budget : 0;
  const spent = { generations: 0, tokens: 0, blockApplications: 0 };
  for (const r of gain) {
    const c = r.probes[probe].cost;
    spent.generations += c.generations;
    spent.tokens += c.tokens;
    spent.blockApplications += c.blockApplications;
  }
  let blind: Record<string, Rate> | null = null;
  if (k === budget) {
    blind = {};
    const selectors = new Set(gain.flatMap((r) => Object.keys(r.blind[probe] ?? {})));
    for (const s of selectors) {
      const picked = gain.filter((r) => r.blind[probe]?.[s]);
      if (picked.length > 0) blind[s] = rateOf(picked.filter((r) => r.blind[probe][s].correct).length, picked.length);
    }
  }
  const per = (x: number) => (spent.generations === 0 ? 0 : x / spent.generations);
  return {
    probe,
    budget,
    reached: rateOf(gain.filter((r) => reachedWithin(r, probe, k)).length, gain.length),
    blind,
    perGeneration: { tokens: per(spent.tokens), blockApplications: per(spent.blockApplications) },
    generations: spent.generations,
  };
}

export function perturbationTable(runs: readonly RunForTables[]): PerturbationTable {
  const table: PerturbationTable = { rule: RULE, rows: [], missing: [] };
  for (const run of runs) {
    const audited = run.records.filter((r) => !r.skipped);
    if (!audited.some((r) => r.probes.perturb)) {
      table.missing.push({ folder: run.folder, reason: 'did not run the perturbation probe (--probe perturb:B)' });
      continue;
    }
    const peers = PERTURBATION_PEERS.filter((p) => audited.some((r) => r.probes[p]));
    if (peers.length === 0) {
      table.missing.push({ folder: run.folder, reason: 'ran the perturbation probe without sample or routes to set it against' });
      continue;
    }
    const probes = ['perturb', ...peers];
    const withAll = audited.filter((r) => probes.every((p) => r.probes[p]));
    const gain = withAll.filter((r) => !r.realized.correct);
    const k = Math.min(...probes.map((p) => withAll[0]?.probes[p].budget ?? 0));
    const reached = new Map(probes.map((p) => [p, gain.map((r) => reachedWithin(r, p, k))]));
    const overlaps: ProbeOverlap[] = [];
    for (let i = 0; i < probes.length; i++) {
      for (let j = i + 1; j < probes.length; j++) {
        overlaps.push(overlapOf(probes[i], probes[j], reached.get(probes[i])!, reached.get(probes[j])!));
      }
    }
    table.rows.push({
      folder: run.folder,
      model: run.model,
      dataset: run.dataset,
      finished: run.finished,
      audited: withAll.length,
      gainSet: gain.length,
      attempts: k,
      probes: probes.map((p) => probeOnGainSet(gain, p, k)),
      overlaps,
    });
  }
  return table;
}
