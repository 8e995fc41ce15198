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
 *
 * Before two questions have finished in order (a run of a few long questions: all of them open at
 * once, none done until near the end), the work is counted in generations instead: the run's
 * planned generations less those that came back, at the tokens per generation measured on the ones
 * that came back, at the engine's live speed; and, once the searches' chains are all that is left,
 * no sooner than the longest allows at its latest rounds' pace (generationTally.ts). The repair
 * scan's share is not known before a question's probes end
 * (it scans realized and reached questions): it is stated apart, as the most it could add.
 */

import { wilsonInterval } from '../../contract';

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
  /** The run counted in generations, for the time before questions finish (see above). */
  generations?: GenerationWork;
}

export interface GenerationWork {
  /** Generations still to come back before any repair scan: fewest (--until-reached: a probe's next attempt hits) and most. */
  left: { least: number; most: number };
  /** Generations that came back (every stage), those of them cut at the token limit, and the cut ones' tokens. */
  returned: number;
  cut: number;
  cutTokens: number;
  /** The token limit of a generation. */
  budget: number;
  /** Tokens the engine has chosen in this session, running generations' included (undefined: a server, which counts none). */
  engineTokens?: number;
  /** The route search's chain: the most rounds an open question has left, and the mean seconds its rounds have taken. */
  chain?: { roundsLeft: number; roundSeconds: number };
  /** Repair-scan generations that may still come: one per block for each question whose scan is not over. */
  repairUndecided?: number;
}

/** Generations that must come back before tokens per generation are measured rather than taken from the warm-up. */
export const MIN_RETURNED_GENERATIONS = 4;

export interface TimeLeft {
  leastMs: number;
  mostMs: number;
  /** The most the repair scan could add on top, when its share is not measured yet (see above). */
  repairMostMs?: number;
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
  if (n < 2 && w.generations && w.generations.returned >= MIN_RETURNED_GENERATIONS) return byGenerations(w.generations, w.returnedTokens, w.elapsedMs);
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

/**
 * Time left counted in generations. Tokens per generation: the ones that came back were cut at the
 * limit in a share p of cases (Wilson's 95% interval) and otherwise stopped at their mean length;
 * the ends pair p's bounds with the limit. Early returns lean short (a generation that stops early
 * comes back early), which the upper end's Wilson bound covers only in part; the question-level
 * estimate takes over once two questions have finished in order.
 */
function byGenerations(g: GenerationWork, returnedTokens: number, elapsedMs: number): TimeLeft {
  const done = g.engineTokens ?? returnedTokens;
  const perMs = done / elapsedMs;
  const stopped = g.returned - g.cut;
  const stoppedMean = stopped > 0 ? Math.max(0, returnedTokens - g.cutTokens) / stopped : 0;
  const { lo: low, hi: high } = wilsonInterval(g.cut, g.returned);
  const mean = returnedTokens / g.returned;
  const perGeneration = {
    least: Math.min(mean, low * g.budget + (1 - low) * stoppedMean),
    most: Math.max(mean, high * g.budget + (1 - high) * stoppedMean),
  };
  // Tokens the generations still running have already taken count against what they need.
  const inFlight = Math.max(0, done - returnedTokens);
  const ms = (generations: number, tokens: number) => Math.max(0, generations * tokens - inFlight) / perMs;
  const chainMs = g.chain ? g.chain.roundsLeft * g.chain.roundSeconds * 1000 : 0;
  const mostMs = Math.max(ms(g.left.most, perGeneration.most), chainMs);
  const leastMs = Math.min(mostMs, ms(g.left.least, perGeneration.least));
  const repairMostMs = g.repairUndecided ? (g.repairUndecided * perGeneration.most) / perMs : undefined;
  const left = g.left.least === g.left.most ? `${g.left.most}` : `${g.left.least}–${g.left.most}`;
  const span = (a: number, b: number) => (Math.round(a) === Math.round(b) ? `${Math.round(a)}` : `${Math.round(a)}–${Math.round(b)}`);
  const chain = g.chain && chainMs > 0 ? `; the search's longest chain ${g.chain.roundsLeft} rounds at ${g.chain.roundSeconds.toFixed(0)} s` : '';
  const repair = repairMostMs !== undefined ? `; the repair scan may add up to ${g.repairUndecided} generations` : '';
  return {
    leastMs,
    mostMs,
    ...(repairMostMs !== undefined ? { repairMostMs } : {}),
    basis: `${left} generations to go at ${span(perGeneration.least, perGeneration.most)} tokens each (${g.cut} of the ${g.returned} back were cut at the ${g.budget}-token limit), ${(perMs * 1000).toFixed(1)} tokens/s so far${chain}${repair}`,
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
