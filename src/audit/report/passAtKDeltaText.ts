/**
 * The base → tuned Δpass@k curves as terminal text (reach-audit compare): one row per k, one column
 * per curve (realized, each probe, the ceiling), each cell Δ in points with its 95% interval, then
 * where each curve changes sign.
 */
import { MIN_BOOTSTRAP_QUESTIONS, type DeltaAtK, type PassAtKDeltaCurve } from '../../contract';

/** Points with one decimal; a value that rounds to 0 reads +0.0, never −0.0 (no sign from rounding). */
const pts = (x: number) => {
  const text = (100 * x).toFixed(1);
  return Number(text) === 0 ? '+0.0' : `${x > 0 ? '+' : ''}${text}`;
};
/** Δ in points with its 95% interval ([—] where none applies). */
export const deltaAtKText = (p: DeltaAtK) => (p.lo === null || p.hi === null ? `${pts(p.delta)} [—]` : `${pts(p.delta)} [${pts(p.lo)}, ${pts(p.hi)}]`);

/** Where a curve changes sign, and whether beyond noise; or its Δ at B where it keeps one sign. */
export function crossingText(c: PassAtKDeltaCurve): string {
  if (c.signChanges.length === 0) {
    const last = c.points[c.points.length - 1];
    return `${c.what}: Δ keeps one sign (or is 0) at every k; at k = ${last.k}: ${deltaAtKText(last)}`;
  }
  const where = c.signChanges.map((k) => `between k = ${k - 1} and ${k}`).join(', ');
  return `${c.what}: the curves cross ${where}${c.crossesBeyondNoise ? ' (intervals on both sides of 0)' : ' (no interval excludes 0 on both sides: within noise)'}`;
}

export function passAtKDeltaLines(curves: readonly PassAtKDeltaCurve[]): string[] {
  if (curves.length === 0) return ['Ceilings along k: no probe with full pools in both runs.'];
  const n = curves[0].n;
  const widths = curves.map((c) => Math.max(c.what.length, ...c.points.map((p) => deltaAtKText(p).length)));
  const row = (k: string, cells: string[]) => `  ${k.padStart(3)}  ${cells.map((s, i) => s.padEnd(widths[i])).join('  ')}`.trimEnd();
  const methods = new Set(curves.flatMap((c) => c.points.map((p) => p.method)));
  return [
    `Ceilings along k: tuned − base pass@k (pts) [95% CI], paired over n = ${n} questions; ceiling = realized, or reached within k by some probe (at k = B the comparison's reachable ceiling when every probe ran B attempts with full pools).`,
    `  Intervals: Newcombe paired score where every value is 0/1${methods.has('bootstrap') ? '; paired percentile bootstrap (10,000, seeded) elsewhere' : ''}${methods.has('none') ? `; none below ${MIN_BOOTSTRAP_QUESTIONS} questions where values are not 0/1 ([—])` : ''}.`,
    row('k', curves.map((c) => c.what)),
    ...curves[0].points.map((_, i) => row(String(i + 1), curves.map((c) => deltaAtKText(c.points[i])))),
    ...curves.map((c) => `  ${crossingText(c)}`),
  ];
}
