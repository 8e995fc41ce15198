/**
 * Ceilings along k as a table view beside the training table: per comparison, one row per k with
 * tuned − base pass@k (points, 95% interval) for realized, each probe and the ceiling, and notes
 * saying where each curve changes sign. The ceiling at B alone cannot tell a falling ceiling from
 * curves that cross (docs/design/comparison.md, "Ceilings along k").
 */
import { passAtKDeltas, type ComparisonForTables } from '../results';
import type { PassAtKDeltaCurve } from '../../contract';
import { crossingText, deltaAtKText } from './passAtKDeltaText';
import type { TableView } from './tablesReport';

export interface PassAtKDeltaRow {
  folder: string;
  base: string;
  tuned: string;
  dataset: string;
  finished: boolean;
  /** Empty where no probe has full pools in both runs. */
  curves: PassAtKDeltaCurve[];
}

export function passAtKDeltaRows(comparisons: readonly ComparisonForTables[]): PassAtKDeltaRow[] {
  return comparisons.map((c) => ({
    folder: c.folder,
    base: c.base.model,
    tuned: c.tuned.model,
    dataset: c.dataset,
    finished: c.base.finished && c.tuned.finished,
    curves: passAtKDeltas(c.base.records, c.tuned.records),
  }));
}

export function passAtKDeltaView(rows: readonly PassAtKDeltaRow[]): TableView {
  // One column per curve any comparison has (realized first, the ceiling last), '—' where a comparison lacks it.
  const names = [...new Set(rows.flatMap((r) => r.curves.map((c) => c.what)))].sort((a, b) => rank(a) - rank(b));
  const label = (r: PassAtKDeltaRow) => `${r.base} → ${r.tuned}${r.finished ? '' : ' (unfinished)'}`;
  const methods = new Set(rows.flatMap((r) => r.curves.flatMap((c) => c.points.map((p) => p.method))));
  return {
    id: 'pass-at-k-delta',
    title: 'Ceilings along k: tuned − base pass@k at every k ≤ B',
    notes: [
      'Δ = tuned − base pass@k in points [95% CI], paired by question; realized is the deployed answer (the same at every k); ceiling = realized, or reached within k by some probe (1 − (1 − realized) · Π over probes of (1 − pass@k)): the same reachable ceiling as in the training table, within k.',
      `Intervals: Newcombe's paired score where every value is 0/1${methods.has('bootstrap') ? '; a seeded paired percentile bootstrap (10,000) elsewhere' : ''}${methods.has('none') ? '; none below 20 questions where values are not 0/1 ([—])' : ''}. Unadjusted for the many k.`,
      ...rows.flatMap((r) => (r.curves.length === 0 ? [`${label(r)}: no probe with full pools in both runs.`] : r.curves.map((c) => `${label(r)}, ${crossingText(c)}`))),
    ],
    headers: ['base → tuned', 'dataset', 'n', 'k', ...names.map((w) => `Δ ${w} (pts) [95% CI]`)],
    rows: rows.flatMap((r) =>
      (r.curves[0]?.points ?? []).map((_, i) => [
        label(r),
        r.dataset,
        String(r.curves[0].n),
        String(i + 1),
        ...names.map((w) => {
          const c = r.curves.find((x) => x.what === w);
          return c ? deltaAtKText(c.points[i]) : '—';
        }),
      ]),
    ),
    csvHeaders: ['folder', 'base', 'tuned', 'dataset', 'finished', 'curve', 'n', 'k', 'base_pass_at_k', 'tuned_pass_at_k', 'delta', 'delta_lo', 'delta_hi', 'interval', 'sign_change_here'],
    csvRows: rows.flatMap((r) =>
      r.curves.flatMap((c) =>
        c.points.map((p) => [r.folder, r.base, r.tuned, r.dataset, r.finished, c.what, c.n, p.k, p.base, p.tuned, p.delta, p.lo, p.hi, p.method, c.signChanges.includes(p.k)]),
      ),
    ),
    apart: [],
  };
}

const rank = (what: string) => (what === 'realized' ? 0 : what === 'ceiling' ? 2 : 1);
