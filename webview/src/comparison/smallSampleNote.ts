/**
 * The word beside the headline of a comparison over a few paired questions: the first questions of
 * a file are a small sample, on which either checkpoint can come out ahead by chance (the demo's
 * first 8 or 30 show the tuned model behind base, while the whole file shows it ahead). Said while
 * no difference is decided (better / worse / equivalent) over at most SMALL_SAMPLE_QUESTIONS
 * paired questions; a decided verdict stands on its own. Pure, DOM-free.
 */
import { decisionOf, RATE_MIN_QUESTIONS, type Comparison } from '../../../src/contract';
import { deltaRows } from './comparisonModel';

/** Up to this many paired questions an undecided comparison is called too small to judge. */
export const SMALL_SAMPLE_QUESTIONS = 30;

export function smallSampleNote(compare: Comparison | undefined): string | undefined {
  const rows = deltaRows(compare);
  if (rows.length === 0) return undefined;
  const n = rows[0].delta.n;
  if (!Number.isFinite(n) || n <= 0 || n > SMALL_SAMPLE_QUESTIONS) return undefined;
  const decided = n >= RATE_MIN_QUESTIONS && rows.some((r) => {
    const v = decisionOf(r.delta.decision)?.verdict;
    return v === 'better' || v === 'worse' || v === 'equivalent';
  });
  if (decided) return undefined;
  const few = `${n.toLocaleString('en-US')} paired question${n === 1 ? ' is' : 's are'} too few to judge a difference between the checkpoints`;
  return `${few}: on so few, either one can come out ahead by chance, so the tuned model may look worse (or better) here than over the whole file. Compare them on more questions (all of the file) before reading a difference.`;
}
