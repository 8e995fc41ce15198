/**
 * The detail pane's sentence for a question's foreclosure window (`record.foreclosure`): between
 * which tokens of the deployed output the answer stops being reachable, with the test that decided
 * each bound, or why no window was decided. Text only, so the node tests read it.
 */
import type { ForeclosureResult } from '../../../src/contract';

const plural = (n: number, word: string, words = `${word}s`) => `${n} ${n === 1 ? word : words}`;

export function foreclosureLine(f: ForeclosureResult): string {
  const t = f.test;
  const test = `θ = ${t.threshold}, each wrong decision at most ${(100 * t.error).toFixed(t.error * 100 < 1 ? 1 : 0)}% likely, at most ${t.samples} continuations a prefix`;
  const tested = plural(f.prefixes.length, 'prefix', 'prefixes');
  if (f.outcome === 'no-bracket' || !f.bracket) return 'Foreclosure window: the depth probe left no bracket to narrow (no prefix reached the answer, the output is too short to cut, or no room after the deepest reaching cut).';
  if (f.outcome === 'undecided' || !f.window) {
    return `Foreclosure window undecided: a bound of the depth bracket (tokens ${f.bracket.from} to ${f.bracket.to}) could not be decided against ${test} (${tested} tested); no window is claimed.`;
  }
  const w = f.window;
  const width = w.to - w.from;
  const where = width === 1 ? `token ${w.from}` : `tokens ${w.from} to ${w.to - 1}`;
  return `Foreclosure window: ${where} (${plural(width, 'token')}, outlined). Continuations from the first ${plural(w.from, 'token')} of the deployed output reach the answer at a rate above θ; from the first ${plural(w.to, 'token')}, below it (${test}; ${tested} tested).`;
}
