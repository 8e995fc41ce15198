/**
 * Where a reasoning model's answer is (docs/design.md section 2, thinking): after the last closing
 * thinking marker. An output whose thought never closed was cut while thinking, and has no answer
 * to read: whatever number it stopped on is an intermediate step, and an answer written inside a
 * thought is a guess the model went on to check.
 */
import type { ThoughtState } from '../../contract';

export interface ThoughtSplit {
  /** null: no thinking marker (and no thought opened by the prompt), the output is read whole. */
  thought: ThoughtState | null;
  /** Where the part read as the answer starts; the output's length when the thought is unfinished. */
  answerFrom: number;
}

/**
 * Thoughts nest: an opening marker inside a thought opens one more level, and the thought is
 * finished once every level has closed. A closing marker with nothing open (the prompt opened the
 * thought, and the settings did not say so) still ends a thought.
 *
 * One pass: each marker's next place is searched again only once the scan has moved past it, so
 * every search starts where the last one of that marker ended and the output is read a bounded
 * number of times (searching both markers from each position anew read a 2 MB output of one
 * marker, or of a one-letter marker with the other absent, once per marker found).
 */
export function splitThought(output: string, markers: { open: string; close: string; startsInThought?: boolean }): ThoughtSplit {
  const { open, close } = markers;
  let depth = markers.startsInThought ? 1 : 0;
  let marked = depth > 0;
  let after = 0;
  let at = 0;
  let o = output.indexOf(open);
  let c = output.indexOf(close);
  for (;;) {
    if (o >= 0 && o < at) o = output.indexOf(open, at);
    if (c >= 0 && c < at) c = output.indexOf(close, at);
    if (o < 0 && c < 0) break;
    marked = true;
    // Where both start at the same place (one marker a prefix of the other), the longer one is meant.
    const isClose = c >= 0 && (o < 0 || c < o || (c === o && close.length >= open.length));
    if (isClose) {
      depth = Math.max(0, depth - 1);
      after = c + close.length;
      at = after;
    } else {
      depth++;
      at = o + open.length;
    }
  }
  if (!marked) return { thought: null, answerFrom: 0 };
  if (depth > 0) return { thought: 'unfinished', answerFrom: output.length };
  return { thought: 'finished', answerFrom: after };
}
