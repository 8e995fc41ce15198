/**
 * The learned-route table: one row per run audited with learned-route, from its records (the same
 * learnedRouteSummary its summary.json carries): on the routes probe's gain set, what the
 * cross-fitted router recovered beside the global route of the same folds, the shuffled-label
 * control and the probe's own reach (Wilson 95%), and learned − global paired (Newcombe, exact
 * McNemar, the verdict). Base and tuned side by side answer whether training made the gain more
 * realizable by a router.
 */
import type { LearnedRouteSummary, PairedDelta, QuestionRecord, Rate } from '../../contract';
import { learnedRouteSummary, type RunForTables } from '../results';
import type { TableView } from './tablesReport';

const rateText = (r: Rate | undefined) => (!r || r.n === 0 ? '—' : `${(100 * r.rate).toFixed(1)}% [${(100 * r.ci.lo).toFixed(1)}, ${(100 * r.ci.hi).toFixed(1)}] (${r.successes} of ${r.n})`);
const rateCsv = (r: Rate | undefined) => (!r ? [null, null, null, 0] : [r.rate, r.ci.lo, r.ci.hi, r.n]);
const deltaText = (d: PairedDelta) => `${d.delta >= 0 ? '+' : ''}${(100 * d.delta).toFixed(1)} [${(100 * d.ci.lo).toFixed(1)}, ${(100 * d.ci.hi).toFixed(1)}] (${d.gained} vs ${d.lost}), p ${d.mcnemarP < 0.001 ? '< 0.001' : d.mcnemarP.toFixed(3)}: ${d.decision?.verdict ?? '—'}`;

export interface LearnedRouteRow {
  folder: string;
  model: string;
  dataset: string;
  finished: boolean;
  /** What the router read: hash buckets, the pooled state (with its block) or both. */
  features: string;
  learned: LearnedRouteSummary;
}

function featuresOf(records: readonly QuestionRecord[]): string {
  const reads = records.find((r) => r.routerFeatures)?.routerFeatures?.reads;
  return reads === 'pooled-state' ? 'pooled state' : reads === 'both' ? 'hash + pooled state' : 'prompt-token hash';
}

export function learnedRouteRows(runs: readonly RunForTables[]): { rows: LearnedRouteRow[]; missing: { folder: string; reason: string }[] } {
  const rows: LearnedRouteRow[] = [];
  const missing: { folder: string; reason: string }[] = [];
  for (const run of runs) {
    const records = run.records.filter((r) => !r.skipped);
    const learned = learnedRouteSummary(records);
    if (learned) rows.push({ folder: run.folder, model: run.model, dataset: run.dataset, finished: run.finished, features: featuresOf(records), learned });
    else missing.push({ folder: run.folder, reason: 'not audited with learned-route (--select …,learned-route and a route probe)' });
  }
  return { rows, missing };
}

export function learnedRouteView(rows: readonly LearnedRouteRow[], missing: readonly { folder: string; reason: string }[]): TableView {
  const recovered = (r: LearnedRouteRow, which: 'learned' | 'global' | 'shuffled') => r.learned.retention?.[which].recovered?.blind;
  return {
    id: 'learned-route',
    title: 'Learned route: how much of the gain set a cross-fitted, answer-blind router realizes',
    notes: [
      "Gain set: questions the deployment gets wrong. Recovered: the pool route chosen for the question reaches its gold answer (Wilson 95%). Each question's route comes from a router fit only on the other folds' questions (learned), beside the global route of those folds and the same router fit on shuffled outcomes (the control, which should not beat the global route beyond chance); reachable is the routes probe's own reach, the ceiling. Learned − global: paired on the same questions (Newcombe interval, exact McNemar).",
    ],
    headers: ['model', 'dataset', 'questions', 'features', 'folds', 'gain set: learned', 'global route (same folds)', 'shuffled control', 'reachable (routes probe)', 'learned − global, gain set (pts)', 'control − global, gain set (pts)'],
    rows: rows.map((r) => [
      r.finished ? r.model : `${r.model} (unfinished)`,
      r.dataset,
      String(r.learned.n),
      r.features,
      String(r.learned.folds),
      rateText(recovered(r, 'learned')),
      rateText(recovered(r, 'global')),
      rateText(recovered(r, 'shuffled')),
      rateText(r.learned.retention?.learned.recovered?.reachable),
      deltaText(r.learned.versusGlobal.gainSet),
      deltaText(r.learned.shuffledVersusGlobal.gainSet),
    ]),
    csvHeaders: [
      'folder', 'model', 'dataset', 'finished', 'questions', 'features', 'folds',
      ...['learned', 'global', 'shuffled', 'reachable'].flatMap((k) => [`${k}`, `${k}_lo`, `${k}_hi`, `${k}_n`]),
      'learned_minus_global', 'learned_minus_global_lo', 'learned_minus_global_hi', 'learned_minus_global_p', 'learned_minus_global_verdict',
      'control_minus_global', 'control_minus_global_lo', 'control_minus_global_hi', 'control_minus_global_p',
    ],
    csvRows: rows.map((r) => {
      const d = r.learned.versusGlobal.gainSet;
      const c = r.learned.shuffledVersusGlobal.gainSet;
      return [
        r.folder, r.model, r.dataset, r.finished, r.learned.n, r.features, r.learned.folds,
        ...rateCsv(recovered(r, 'learned')), ...rateCsv(recovered(r, 'global')), ...rateCsv(recovered(r, 'shuffled')), ...rateCsv(r.learned.retention?.learned.recovered?.reachable),
        d.delta, d.ci.lo, d.ci.hi, d.mcnemarP, d.decision?.verdict ?? null,
        c.delta, c.ci.lo, c.ci.hi, c.mcnemarP,
      ];
    }),
    apart: missing.map((m) => `Not in the table: ${m.folder} — ${m.reason}`),
  };
}
