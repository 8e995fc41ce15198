/**
 * The foreclosure-window lines of a run's summary (docs/design/probes.md, "Foreclosure window"): how many
 * depth brackets were narrowed to a decided window, the windows' median width in tokens against
 * the brackets', and what it cost. Under 20 windows: counts only.
 */
import type { ForeclosureMoves, ForeclosureSummary, MedianWithInterval } from '../../contract';

/** Below this many, a share or a median is given as counts only. */
const FEWEST_FOR_RATES = 20;

const tokens = (x: number) => `${Number.isInteger(x) ? x : x.toFixed(1)} token${x === 1 ? '' : 's'}`;
const median = (m: MedianWithInterval) => `median ${tokens(m.median)}${m.ci ? ` [${m.ci.lo}, ${m.ci.hi}]` : ''} (n = ${m.n})`;

export function foreclosureLines(f: ForeclosureSummary): string[] {
  const test = `at most ${f.samples} samples a prefix; a prefix reaches when its success rate is decided above ${f.threshold}, does not when decided below it, each wrong decision at most ${(100 * f.error).toFixed(1)}% likely`;
  const head = `  foreclosure window (${f.n} depth-probed question${f.n === 1 ? '' : 's'}, ${f.bracketed} with a depth bracket to narrow; ${test})`;
  const d = f.decided;
  const decided =
    d.n < FEWEST_FOR_RATES
      ? `decided ${d.successes} of ${d.n} (counts only, under ${FEWEST_FOR_RATES})`
      : `decided ${(100 * d.rate).toFixed(1)}% [${(100 * d.ci.lo).toFixed(1)}, ${(100 * d.ci.hi).toFixed(1)}] ${d.successes}/${d.n}`;
  const widths =
    f.width === null || f.bracketWidth === null
      ? 'no decided window'
      : f.width.n < FEWEST_FOR_RATES
        ? `${f.width.n} window${f.width.n === 1 ? '' : 's'}, ${f.oneToken} of them one token wide (too few for a median with an interval)`
        : `window ${median(f.width)} vs its depth bracket ${median(f.bracketWidth)}; ${f.oneToken} one token wide (95% distribution-free intervals)`;
  const p = f.prefixes;
  return [
    head,
    `      ${decided}; ${widths}`,
    `      prefixes decided: ${p.reaches} reach, ${p.not} do not, ${p.undecided} undecided; cost ${f.cost.generations} generations, ${f.cost.tokens} tokens, ${f.cost.blockApplications} block applications`,
  ];
}

/** Base → tuned: where the windows moved, with the sign test from 20 questions, else counts only. */
export function foreclosureMovesText(m: ForeclosureMoves): string {
  const counts = `${m.n} of ${m.bracketed} questions bracketed in both have a window in both: later in the tuned output ${m.later}, earlier ${m.earlier}, same place ${m.same}; a window in base only ${m.onlyBase}, tuned only ${m.onlyTuned}`;
  if (m.p === null) return `foreclosure window (base → tuned): ${counts} (counts only, under ${FEWEST_FOR_RATES})`;
  const p = m.p < 0.001 ? m.p.toExponential(2) : m.p.toFixed(3);
  const verdict = m.p < 0.05 ? (m.later > m.earlier ? 'the window moved later' : 'the window moved earlier') : 'no move of the window detected';
  return `foreclosure window (base → tuned): ${verdict}, exact sign test (McNemar on later vs earlier) p = ${p}; ${counts}`;
}
