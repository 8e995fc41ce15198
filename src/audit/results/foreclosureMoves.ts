/**
 * Base → tuned for the foreclosure window (docs/design/probes.md, "Foreclosure window"): on the paired
 * questions both runs bracketed, how many have a decided window in each, and on those with one in
 * both, whether the window sits later or earlier in the tuned deployed output (its midpoint as a
 * share of the output, since the two outputs differ in length). From 20 such questions an exact
 * two-sided sign test (McNemar on the later / earlier split) says whether training moved it;
 * under 20, counts only.
 */
import type { ForeclosureMoves, QuestionRecord } from '../../contract';
import { mcnemarExact } from '../stats';

/** Below this many questions with a window in both runs, no test is given. */
const FEWEST_FOR_TEST = 20;

const placeOf = (r: QuestionRecord): number | null => {
  const w = r.foreclosure?.window;
  const total = r.depth?.outputTokens ?? 0;
  return w && total > 0 ? (w.from + w.to) / 2 / total : null;
};

export function foreclosureMoves(pairs: readonly (readonly [QuestionRecord, QuestionRecord])[]): ForeclosureMoves | undefined {
  if (!pairs.some(([b]) => b.foreclosure) || !pairs.some(([, t]) => t.foreclosure)) return undefined;
  const bracketed = pairs.filter(([b, t]) => b.foreclosure?.bracket && t.foreclosure?.bracket);
  let later = 0;
  let earlier = 0;
  let same = 0;
  let onlyBase = 0;
  let onlyTuned = 0;
  for (const [b, t] of bracketed) {
    const [pb, pt] = [placeOf(b), placeOf(t)];
    if (pb !== null && pt !== null) {
      if (Math.abs(pt - pb) < 1e-12) same++;
      else if (pt > pb) later++;
      else earlier++;
    } else if (pb !== null) onlyBase++;
    else if (pt !== null) onlyTuned++;
  }
  const n = later + earlier + same;
  return { bracketed: bracketed.length, n, later, earlier, same, onlyBase, onlyTuned, p: n >= FEWEST_FOR_TEST ? mcnemarExact(later, earlier) : null };
}
