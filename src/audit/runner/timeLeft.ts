/**
 * The time an audit has left, from what this run has measured so far, as a range that narrows as
 * questions finish. Its parts, each measured on the run itself:
 *
 * - speed: the tokens that came back per second since the session started — the run's own request
 *   mix, lengths and batch, not a warm-up's;
 * - work per question: the tokens each finished question's record spent (deployment, probes, pool,
 *   repair scan), so a run whose probes stop early (--until-reached), or whose repair scan runs on a
 *   few questions, is measured as it is; before any question has finished, the warm-up's planned
 *   range per question stands in;
 * - work in flight: tokens already spent on questions not finished yet are not counted twice.
 *
 * The range is the remaining questions' total at the per-question mean ± 1.96 standard errors of a
 * sum of that many further questions drawn like the finished ones (the mean's own uncertainty plus
 * the spread of the questions left), so it is wide after a few questions and narrows with each.
 */

/** Below this much timed work the speed is not trusted (the first steps are prefills). */
export const MIN_TIMED_MS = 5_000;

export interface LiveWork {
  /** Questions this session set out to audit. */
  questions: number;
  /** Tokens each finished question's record spent, in finishing order. */
  finished: readonly number[];
  /**
   * The tokens of the run's first questions in order, as far as all of them have finished. With
   * many questions open the cheap ones finish first, so the finished questions' mean runs low
   * (measured on the demo: time left 16–32% short at a tenth of the run); the questions are served
   * in order, so this prefix finished by position, not by cost. Used once it holds two questions.
   */
  inOrder?: readonly number[];
  /** Tokens of every generation that came back in this session (finished questions' and the rest). */
  returnedTokens: number;
  elapsedMs: number;
  /** Before any question finishes: tokens per question from the pre-run warm-up (fewest, most). */
  planned?: { least: number; most: number };
}

export interface TimeLeft {
  leastMs: number;
  mostMs: number;
  /** What the range rests on, in words ("12 finished questions, 58.1 tokens/s"). */
  basis: string;
}

export function timeLeft(w: LiveWork): TimeLeft | undefined {
  if (w.returnedTokens <= 0 || w.elapsedMs < MIN_TIMED_MS) return undefined;
  const perMs = w.returnedTokens / w.elapsedMs;
  const speed = `${(perMs * 1000).toFixed(1)} tokens/s so far`;
  const left = Math.max(0, w.questions - w.finished.length);
  if (left === 0) return { leastMs: 0, mostMs: 0, basis: speed };
  const spentOnFinished = w.finished.reduce((a, b) => a + b, 0);
  // Tokens already in the questions still open: they count against what those questions need.
  const inFlight = Math.max(0, w.returnedTokens - spentOnFinished);
  const ms = (tokens: number) => Math.max(0, tokens - inFlight) / perMs;
  const sample = w.inOrder && w.inOrder.length >= 2 ? w.inOrder : w.finished;
  const n = sample.length;
  if (n < 2) {
    if (!w.planned) return undefined;
    const { least, most } = w.planned;
    return { leastMs: ms(left * least), mostMs: ms(left * most), basis: `the warm-up's ${Math.round(least)}–${Math.round(most)} tokens per question, ${speed}` };
  }
  const mean = sample.reduce((a, b) => a + b, 0) / n;
  let ss = 0;
  for (const t of sample) ss += (t - mean) ** 2;
  const sd = Math.sqrt(ss / (n - 1));
  const half = 1.96 * sd * Math.sqrt(left * left / n + left);
  return {
    leastMs: ms(Math.max(0, left * mean - half)),
    mostMs: ms(left * mean + half),
    basis: `${sample === w.inOrder ? `the first ${n} questions` : `${n} finished questions`} at ${Math.round(mean)} tokens each, ${speed}`,
  };
}

/** The tokens one finished question's record spent, every stage. */
export function recordTokens(r: { realized: { cost: { tokens: number } }; probes: Record<string, { cost: { tokens: number } }>; globalRoutes?: { cost: { tokens: number } }; repair?: { cost: { tokens: number } } }): number {
  let t = r.realized.cost.tokens;
  for (const p of Object.values(r.probes)) t += p.cost.tokens;
  if (r.globalRoutes) t += r.globalRoutes.cost.tokens;
  if (r.repair) t += r.repair.cost.tokens;
  return t;
}
