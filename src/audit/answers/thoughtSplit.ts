/**
 * Where a reasoning model's answer is (docs/design/grading.md, thinking): after the last closing
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

interface Markers {
  open: string;
  close: string;
}

/**
 * Calls `found` for each marker in reading order, markers not overlapping; where both start at the
 * same place (one marker a prefix of the other), the longer one is meant.
 *
 * One pass: each marker's next place is searched again only once the scan has moved past it, so
 * every search starts where the last one of that marker ended and the output is read a bounded
 * number of times (searching both markers from each position anew read a 2 MB output of one
 * marker, or of a one-letter marker with the other absent, once per marker found).
 */
function scanMarkers(text: string, { open, close }: Markers, found: (isClose: boolean, end: number) => void): void {
  let at = 0;
  let o = text.indexOf(open);
  let c = text.indexOf(close);
  for (;;) {
    if (o >= 0 && o < at) o = text.indexOf(open, at);
    if (c >= 0 && c < at) c = text.indexOf(close, at);
    if (o < 0 && c < 0) return;
    const isClose = c >= 0 && (o < 0 || c < o || (c === o && close.length >= open.length));
    at = isClose ? c + close.length : o + open.length;
    found(isClose, at);
  }
}

/**
 * The thought ends at the last closing marker: opening markers inside it (the thought writing about
 * the marker, or a model writing its own opening marker under a template that already opened the
 * thought) do not keep it open, and opening markers after it are answer text (a code fence showing
 * the tag). A closing marker with nothing open (the prompt opened the thought, and the settings did
 * not say so) still ends a thought. Only an output with no closing marker at all, and a thought
 * opened (by a marker or the prompt), is cut while thinking.
 */
export function splitThought(output: string, markers: Markers & { startsInThought?: boolean }): ThoughtSplit {
  let opened = markers.startsInThought === true;
  let after = -1;
  scanMarkers(output, markers, (isClose, end) => {
    if (isClose) after = end;
    else opened = true;
  });
  if (after >= 0) return { thought: 'finished', answerFrom: after };
  if (opened) return { thought: 'unfinished', answerFrom: output.length };
  return { thought: null, answerFrom: 0 };
}

/**
 * Whether a rendered prompt leaves a thought open, so every output starts inside it: its last
 * marker is an opening one (a template ending in `<think>\n`, after earlier turns whose thoughts
 * closed).
 */
export function endsInThought(prompt: string, markers: Markers): boolean {
  let lastOpens = false;
  scanMarkers(prompt, markers, (isClose) => {
    lastOpens = !isClose;
  });
  return lastOpens;
}
