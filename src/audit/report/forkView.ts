/**
 * The forks table (`table --kind forks`): one row per run with --fork-probe, from its records (the
 * same forkSummary its summary.json carries): the share of unrealized questions a fork saves, the
 * entropy arm against the random-position null, the save rate per fork of each arm, where the
 * earliest saving forks fall, and the cost; then one row per comparison whose two runs both forked:
 * saved by a fork, base → tuned, on the questions neither realizes.
 */
import type { ForkSummary, Rate } from '../../contract';
import { forkSummary, forkTransition, type ComparisonForTables, type ForkTransition, type RunForTables } from '../results';
import { forkDeltaText } from './forkText';
import type { TableView } from './tablesReport';

const rateText = (r: Rate) => (r.n === 0 ? '—' : `${(100 * r.rate).toFixed(1)}% [${(100 * r.ci.lo).toFixed(1)}, ${(100 * r.ci.hi).toFixed(1)}] (n = ${r.n})`);
const rateCsv = (r: Rate) => (r.n === 0 ? [null, null, null, 0] : [r.rate, r.ci.lo, r.ci.hi, r.n]);

export interface ForkRow {
  folder: string;
  model: string;
  dataset: string;
  finished: boolean;
  fork: ForkSummary;
}

export interface ForkTransitionRow {
  folder: string;
  dataset: string;
  transition: ForkTransition;
}

export function forkRows(runs: readonly RunForTables[], comparisons: readonly ComparisonForTables[], margin?: number): { rows: ForkRow[]; transitions: ForkTransitionRow[]; missing: { folder: string; reason: string }[] } {
  const rows: ForkRow[] = [];
  const missing: { folder: string; reason: string }[] = [];
  for (const run of runs) {
    const fork = forkSummary(run.records, margin);
    if (fork) rows.push({ folder: run.folder, model: run.model, dataset: run.dataset, finished: run.finished, fork });
    else missing.push({ folder: run.folder, reason: 'no fork probe results (audit with --fork-probe B; only questions the deployment does not realize get one)' });
  }
  const transitions = comparisons.flatMap((c): ForkTransitionRow[] => {
    const t = forkTransition(c.base.records, c.tuned.records, margin);
    return t ? [{ folder: c.folder, dataset: c.dataset, transition: t }] : [];
  });
  return { rows, transitions, missing };
}

const NOTE =
  "For each question the deployment does not realize, forks take one of the most likely other tokens at a position of the deployed output and continue greedily and with the sample probe's decoding. Half the budget forks at the output's highest-entropy positions (entropy arm), half at seeded random positions (random arm: the null of no information in entropy). Saved: some fork's continuation is correct (Wilson 95%). Entropy vs random: questions saved by each arm, paired (Newcombe's score 95% interval, exact McNemar, the verdict against the margin); under 20 questions, counts only. Calibration row \"forks: entropy vs random\".";

export function forkView(rows: readonly ForkRow[], missing: readonly { folder: string; reason: string }[]): TableView {
  const vs = (f: ForkSummary) => (f.entropyVsRandom ? forkDeltaText(f.entropyVsRandom, 'random', 'entropy') : `counts only (n = ${f.n} < 20): entropy only ${f.entropyOnly}, random only ${f.randomOnly}`);
  return {
    id: 'forks',
    title: 'Forks: where another token keeps an answer the deployment loses',
    notes: [NOTE],
    headers: ['model', 'dataset', 'unrealized', 'B', 'positions per arm', 'saved by a fork', 'within the failure set', 'entropy arm', 'random arm', 'entropy vs random', 'forks that save (entropy / random)', 'earliest saving fork by quarter', 'generations per question'],
    rows: rows.map((r) => [
      r.finished ? r.model : `${r.model} (unfinished)`,
      r.dataset,
      String(r.fork.n),
      String(r.fork.budget),
      `${r.fork.positions} × ${r.fork.alternatives} alternative${r.fork.alternatives === 1 ? '' : 's'}`,
      rateText(r.fork.saved),
      rateText(r.fork.savedInFailureSet),
      rateText(r.fork.entropy),
      rateText(r.fork.random),
      vs(r.fork),
      `${rateText(r.fork.forks.entropy)} / ${rateText(r.fork.forks.random)}`,
      r.fork.earliestQuarter.join(' / '),
      (r.fork.cost.generations / Math.max(1, r.fork.n)).toFixed(1),
    ]),
    csvHeaders: [
      'folder', 'model', 'dataset', 'finished', 'unrealized', 'budget', 'positions', 'alternatives',
      ...['saved', 'saved_in_failure_set', 'entropy_arm', 'random_arm', 'entropy_forks', 'random_forks'].flatMap((k) => [k, `${k}_lo`, `${k}_hi`, `${k}_n`]),
      'entropy_only', 'random_only', 'entropy_minus_random', 'entropy_minus_random_lo', 'entropy_minus_random_hi', 'mcnemar_p', 'verdict',
      'earliest_q1', 'earliest_q2', 'earliest_q3', 'earliest_q4', 'generations', 'tokens', 'block_applications',
    ],
    csvRows: rows.map((r) => {
      const f = r.fork;
      const d = f.entropyVsRandom;
      return [
        r.folder, r.model, r.dataset, r.finished, f.n, f.budget, f.positions, f.alternatives,
        ...[f.saved, f.savedInFailureSet, f.entropy, f.random, f.forks.entropy, f.forks.random].flatMap(rateCsv),
        f.entropyOnly, f.randomOnly, d?.delta ?? null, d?.ci.lo ?? null, d?.ci.hi ?? null, d?.mcnemarP ?? null, d?.decision?.verdict ?? null,
        ...f.earliestQuarter, f.cost.generations, f.cost.tokens, f.cost.blockApplications,
      ];
    }),
    apart: missing.map((m) => `Not in the table: ${m.folder} — ${m.reason}`),
  };
}

export function forkTransitionView(rows: readonly ForkTransitionRow[]): TableView {
  return {
    id: 'forks-training',
    title: 'Forks base → tuned: did training move the forks?',
    notes: ['Per comparison, on the questions neither checkpoint realizes (matched by id): saved by a fork on base and on tuned, paired (Newcombe score 95% interval, exact McNemar, verdict against the margin); under 20 paired questions, counts only. Questions forked on one checkpoint only (the other realizes them) are counted apart.'],
    headers: ['comparison', 'dataset', 'paired', 'saved base only / tuned only / both', 'tuned − base', 'forked on base only / tuned only'],
    rows: rows.map((r) => {
      const t = r.transition;
      return [r.folder, r.dataset, String(t.paired), `${t.lost} / ${t.gained} / ${t.both}`, t.delta ? forkDeltaText(t.delta, 'base', 'tuned') : `counts only (n = ${t.paired} < 20)`, `${t.baseOnly} / ${t.tunedOnly}`];
    }),
    csvHeaders: ['folder', 'dataset', 'paired', 'saved_base_only', 'saved_tuned_only', 'saved_both', 'delta', 'delta_lo', 'delta_hi', 'mcnemar_p', 'verdict', 'forked_base_only', 'forked_tuned_only'],
    csvRows: rows.map((r) => {
      const t = r.transition;
      return [r.folder, r.dataset, t.paired, t.lost, t.gained, t.both, t.delta?.delta ?? null, t.delta?.ci.lo ?? null, t.delta?.ci.hi ?? null, t.delta?.mcnemarP ?? null, t.delta?.decision?.verdict ?? null, t.baseOnly, t.tunedOnly];
    }),
    apart: [],
  };
}
