/**
 * Answer-blind selection (docs/design/answer-blind-selection.md): pick one candidate among a probe's outputs without the
 * gold answer. `majority` and `confidence` look at one question's candidates; `global-route` is a
 * run-level choice (one route for every held-out question), made in summary.ts from the shared
 * route pool with chooseGlobalRoute.
 */
import type { Attempt, BlindChoice } from '../../contract';
import { hasAnswerMarker } from '../answers';

const NO_CHOICE: BlindChoice = { answer: null, correct: false, attempt: null };

/**
 * The candidates a blind selector may pick from, as indices into `attempts`: those with an
 * extracted answer, and, when cut at the token limit, an answer marker in them. A cut output with
 * no marker stopped wherever the limit fell — its "answer" is whatever number or letter came last —
 * and degenerate repetitive outputs, which run to the limit, score high mean log-probs; both would
 * vote or win for reasons that are not the model's answer. An output cut while thinking (its
 * thought never closed) has no answer either, whatever a record of older grading says. Only the
 * output is looked at, never the gold, so the pool stays answer-blind.
 */
export function cleanPool(attempts: readonly Attempt[]): number[] {
  const pool: number[] = [];
  attempts.forEach((a, i) => {
    if (a.answer !== null && a.thought !== 'unfinished' && (!a.truncated || hasAnswerMarker(a))) pool.push(i);
  });
  return pool;
}

function meanLogprob(a: Attempt): number {
  return a.logprob ?? -Infinity;
}

/**
 * x is higher than y by more than float32 rounding. Log-probs come from float32 arithmetic whose
 * last digits move with the batch a sequence shared (padding changes the summation order), so
 * closer values count as a tie and the earlier candidate keeps the pick: the choice then depends
 * on the question alone.
 */
export function clearlyAbove(x: number, y: number): boolean {
  if (!Number.isFinite(x) || !Number.isFinite(y)) return x > y;
  return x - y > 1e-6 * Math.max(1, Math.abs(y));
}

/**
 * The most frequent extracted answer (compared by `keyOf`, the format's normalized form); ties go
 * to the answer whose candidates have the higher mean of their mean token log-probs, then to the
 * answer seen first. Only the clean pool votes (cleanPool; `dropped` counts the others). The chosen
 * answer is graded through its most confident candidate.
 */
export function selectMajority(attempts: readonly Attempt[], keyOf: (answer: string) => string): BlindChoice {
  const groups = new Map<string, { count: number; logprobSum: number; best: number; first: number }>();
  const pool = cleanPool(attempts);
  const dropped = attempts.length - pool.length;
  for (const i of pool) {
    const a = attempts[i];
    if (a.answer === null) continue;
    const key = keyOf(a.answer);
    const g = groups.get(key);
    if (!g) {
      groups.set(key, { count: 1, logprobSum: meanLogprob(a), best: i, first: i });
      continue;
    }
    g.count++;
    g.logprobSum += meanLogprob(a);
    if (clearlyAbove(meanLogprob(a), meanLogprob(attempts[g.best]))) g.best = i;
  }
  let chosen: { count: number; logprobSum: number; best: number; first: number } | undefined;
  for (const g of groups.values()) {
    if (!chosen) {
      chosen = g;
      continue;
    }
    const mean = g.logprobSum / g.count;
    const chosenMean = chosen.logprobSum / chosen.count;
    if (g.count > chosen.count || (g.count === chosen.count && (clearlyAbove(mean, chosenMean) || (!clearlyAbove(chosenMean, mean) && g.first < chosen.first)))) chosen = g;
  }
  if (!chosen) return { ...NO_CHOICE, dropped };
  const pick = attempts[chosen.best];
  return { answer: pick.answer, correct: pick.correct, attempt: chosen.best, dropped };
}

/**
 * The candidate of the clean pool (cleanPool) with the highest mean token log-prob (first one on
 * ties, within float32 rounding); `dropped` counts the candidates left out.
 */
export function selectConfidence(attempts: readonly Attempt[]): BlindChoice {
  const pool = cleanPool(attempts);
  const dropped = attempts.length - pool.length;
  let best = -1;
  for (const i of pool) {
    if (best < 0 || clearlyAbove(meanLogprob(attempts[i]), meanLogprob(attempts[best]))) best = i;
  }
  if (best < 0) return { ...NO_CHOICE, dropped };
  return { answer: attempts[best].answer, correct: attempts[best].correct, attempt: best, dropped };
}

/**
 * The global route: the pool index with the most correct answers over the selection questions
 * (`correctByQuestion[q][r]`); ties go to the lower index. Undefined for an empty pool.
 */
export function chooseGlobalRoute(correctByQuestion: readonly (readonly boolean[])[], poolSize: number): number | undefined {
  if (poolSize === 0) return undefined;
  const wins = new Array<number>(poolSize).fill(0);
  for (const row of correctByQuestion) row.forEach((c, r) => { if (c && r < poolSize) wins[r]++; });
  let best = 0;
  for (let r = 1; r < poolSize; r++) if (wins[r] > wins[best]) best = r;
  return best;
}
