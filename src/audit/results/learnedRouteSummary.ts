/**
 * The learned-route selector over a run (docs/design/answer-blind-selection.md, "Learned router"), fit after every record
 * is in (so a merged sharded run and a resumed one fit exactly what a single run fits): each
 * question's route comes from a router fit on the other folds' pool outcomes, beside the global
 * route of the other folds and the shuffled-label control on the same questions; retention against
 * the routes probe's reach, and learned − global paired (exact McNemar, Newcombe interval).
 */
import { rateOf, type LearnedRouteSummary, type QuestionRecord, type RouterFeatures } from '../../contract';
import { crossFit, DEFAULT_ROUTER_MODEL, routerModelText, type FoldRow } from '../router';
import { DEFAULT_MARGIN, pairedDelta } from '../stats';
import { blindRetention } from './blindRetention';

/** What the router fits on for one question: the hash buckets, the projected pooled state, or both side by side. */
export function routerInput(f: RouterFeatures): number[] {
  if (f.reads === 'pooled-state' && f.state) return f.state;
  if (f.reads === 'both' && f.state) return [...f.features, ...f.state];
  return f.features;
}

/** Records in file order with the pool and the router's features; undefined when the run has none. */
export function learnedRouteSummary(records: readonly QuestionRecord[], margin: number = DEFAULT_MARGIN): LearnedRouteSummary | undefined {
  const used = records.filter((r) => r.globalRoutes && r.globalRoutes.attempts.length > 0 && r.routerFeatures);
  if (used.length === 0) return undefined;
  const folds = used[0].routerFeatures!.folds;
  const poolSize = Math.min(...used.map((r) => r.globalRoutes!.attempts.length));
  const rows: FoldRow[] = used.map((r) => ({ id: r.id, fold: r.routerFeatures!.fold, features: routerInput(r.routerFeatures!), correct: r.globalRoutes!.attempts.slice(0, poolSize).map((a) => a.correct) }));
  const chosen = crossFit(rows, folds, poolSize, DEFAULT_ROUTER_MODEL, ['summary']);
  const outcome = (picks: readonly number[]) => used.map((r, i) => r.globalRoutes!.attempts[picks[i]].correct);
  const learned = outcome(chosen.learned);
  const global = outcome(chosen.global);
  const shuffled = outcome(chosen.shuffled);
  const gain = used.map((r, i) => ({ r, i })).filter(({ r }) => !r.realized.correct).map(({ i }) => i);
  const on = (xs: readonly boolean[], idx: readonly number[]) => idx.map((i) => xs[i]);
  const count = (xs: readonly boolean[]) => xs.filter(Boolean).length;
  const withRoutes = used.map((r, i) => ({ r, i })).filter(({ r }) => r.probes.routes);
  const retentionOf = (xs: readonly boolean[], name: string) =>
    blindRetention(
      withRoutes.map(({ r, i }) => ({ blind: xs[i], realized: r.realized.correct, reachable: r.reachable.routes === true })),
      ['routes', name],
    );
  const choices: Record<string, number> = {};
  used.forEach((r, i) => (choices[r.id] = chosen.learned[i]));
  // Said only when the router read the pooled state, so a hash run's summary is as it was.
  const reads = used[0].routerFeatures!.reads;
  const summary: LearnedRouteSummary = {
    folds,
    model: routerModelText(DEFAULT_ROUTER_MODEL),
    ...(reads ? { reads } : {}),
    poolSize,
    n: used.length,
    foldSizes: Array.from({ length: folds }, (_, f) => rows.filter((row) => row.fold === f).length),
    accuracy: { learned: rateOf(count(learned), used.length), global: rateOf(count(global), used.length), shuffled: rateOf(count(shuffled), used.length) },
    versusGlobal: { gainSet: pairedDelta(on(global, gain), on(learned, gain), margin), all: pairedDelta(global, learned, margin) },
    shuffledVersusGlobal: { gainSet: pairedDelta(on(global, gain), on(shuffled, gain), margin) },
    choices,
  };
  if (withRoutes.length > 0) summary.retention = { learned: retentionOf(learned, 'learned-route'), global: retentionOf(global, 'global-route-cross-fitted'), shuffled: retentionOf(shuffled, 'learned-route-shuffled') };
  return summary;
}
