/**
 * Ceilings along k as the Comparison section words them, DOM-free: the stored curves read
 * defensively (the comparison crosses postMessage from a file on disk; an older one has none), each
 * Δ with its interval, and where each curve changes sign, with its n.
 */
import { isObject, type Comparison, type DeltaAtK, type PassAtKDeltaCurve } from '../../../src/contract';
import { count } from '../common/numberText';

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const bound = (x: unknown): x is number | null => x === null || finite(x);

function isPoint(p: unknown): p is DeltaAtK {
  return isObject(p) && finite(p.k) && finite(p.delta) && bound(p.lo) && bound(p.hi);
}

/** The well-formed curves of a comparison, all over the same k; none for a file written before they were stored. */
export function passAtKDeltaCurves(compare: Comparison | undefined): PassAtKDeltaCurve[] {
  return wellFormedCurves(compare?.passAtKDeltas);
}

/** The well-formed Δpass@k curves of stored data (a comparison's, a trajectory step's), all over the same k. */
export function wellFormedCurves(raw: unknown): PassAtKDeltaCurve[] {
  if (!Array.isArray(raw)) return [];
  const curves = raw.filter((c): c is PassAtKDeltaCurve =>
    isObject(c) && typeof c.what === 'string' && finite(c.n) && Array.isArray(c.points) && c.points.length > 0 && c.points.every(isPoint) && Array.isArray(c.signChanges) && c.signChanges.every(finite));
  return curves.filter((c) => c.points.length === curves[0].points.length);
}

/** A value that rounds to 0 reads +0.0, never −0.0 (no sign from rounding). */
const points = (x: number) => {
  const text = Math.abs(100 * x).toFixed(1);
  return `${x >= 0 || Number(text) === 0 ? '+' : '−'}${text}`;
};
/** Δ in points with its 95% interval; "no interval" where the file has none (too few questions). */
export function deltaAtKCell(p: DeltaAtK): string {
  return p.lo === null || p.hi === null ? `${points(p.delta)} (no interval)` : `${points(p.delta)} [${points(p.lo)}, ${points(p.hi)}]`;
}

/** The method of a Δ's interval, as the calibration table names it. */
const METHOD_TEXT: Record<DeltaAtK['method'], string> = { newcombe: 'Newcombe paired score', bootstrap: 'paired percentile bootstrap', none: 'too few questions for an interval' };

/** Where a curve changes sign, and whether beyond noise; or that it keeps one sign. */
export function crossingSentence(c: PassAtKDeltaCurve): string {
  if (c.signChanges.length === 0) {
    const last = c.points[c.points.length - 1];
    return `${c.what}: Δ keeps one sign (or is 0) at every k; at k = ${last.k}: ${deltaAtKCell(last)} pts (${METHOD_TEXT[last.method] ?? 'no interval'}), n = ${count(c.n)}.`;
  }
  const where = c.signChanges.map((k) => `between k = ${k - 1} and ${k}`).join(', ');
  return `${c.what}: the curves cross ${where} — ${c.crossesBeyondNoise ? 'intervals on both sides of 0' : 'within noise (no interval excludes 0 on both sides)'}, n = ${count(c.n)}.`;
}

