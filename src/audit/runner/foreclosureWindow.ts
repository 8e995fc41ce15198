/**
 * The foreclosure window (docs/design.md, "Foreclosure window"): for a depth-probed question, the
 * tokens of its deployed output across which the answer stops being reachable, narrowed from the
 * depth probe's bracket (its deepest reaching cut and the next cut, or the end of the output) by
 * bisection over token positions. Each prefix tested is decided "reaches" (success rate above the
 * threshold) or "does not reach" (below it) by a sequential test with a stated error rate
 * (stats/sequentialRateTest.ts), on fresh seeded samples with the sample probe's decoding; a prefix
 * the test cannot decide within its samples stops the narrowing there. The window is reported only
 * when both its bounds are decided, so it is never a point read off noise.
 */
import type { Decoding, Generation, GenerationRequest } from '../../engine';
import type { Budget, DepthResult, Deployment, ForeclosurePrefix, ForeclosureResult } from '../../contract';
import type { Question } from '../dataset';
import { decisionAt, type SequentialRateTest } from '../stats';
import { costOf } from '../probes';
import { depthRequest } from './depthOfLoss';

/** The prefix decision a rate decision stands for: above the threshold reaches, below does not. */
const DECISION = { above: 'reaches', below: 'not', undecided: 'undecided' } as const;

/**
 * The bracket to narrow, in tokens of the deployed output: from the depth probe's deepest reaching
 * prefix to the next prefix, or to the end of the usable output when the deepest prefix still
 * reaches and a continuation still fits the token budget. None when no prefix reached the answer,
 * the output was too short to cut, or nothing lies between.
 */
export function foreclosureBracket(depth: DepthResult, maxNewTokens: number): { from: number; to: number } | null {
  if (depth.lostIn === 'too-short' || depth.deepestReached === null) return null;
  const from = depth.points[depth.deepestReached].tokens;
  const to = depth.noReturn !== null ? depth.points[depth.noReturn.point].tokens : maxNewTokens - depth.outputTokens >= 1 ? depth.outputTokens : null;
  return to !== null && to > from ? { from, to } : null;
}

/**
 * The most prefixes one question decides: the bracket's two bounds and the bisection points that
 * narrow a bracket as wide as the token budget to one token.
 */
export function mostForeclosurePrefixes(maxNewTokens: number): number {
  return 2 + Math.ceil(Math.log2(Math.max(1, maxNewTokens)));
}

/** Decides one prefix: samples its continuations a look at a time until the test decides or runs out. */
export async function decidePrefix(test: SequentialRateTest, tokens: number, sample: (tokens: number, from: number, to: number) => Promise<boolean[]>): Promise<ForeclosurePrefix> {
  let n = 0;
  let successes = 0;
  for (let i = 0; i < test.looks.length; i++) {
    const outcomes = await sample(tokens, n, test.looks[i]);
    n = test.looks[i];
    successes += outcomes.filter(Boolean).length;
    const d = decisionAt(test, i, successes);
    if (d) return { tokens, samples: n, successes, decision: DECISION[d] };
  }
  return { tokens, samples: n, successes, decision: 'undecided' };
}

/**
 * Bisection between the bracket's bounds, each decided first (both at once). The window narrows
 * while its bounds are decided and more than one token apart; a prefix decided neither way stops
 * it. `sample(tokens, from, to)` gives the outcomes of continuations from..to−1 of that prefix.
 */
export async function narrowWindow(
  test: SequentialRateTest,
  bracket: { from: number; to: number },
  sample: (tokens: number, from: number, to: number) => Promise<boolean[]>,
): Promise<{ outcome: 'window' | 'undecided'; window: { from: number; to: number } | null; prefixes: ForeclosurePrefix[] }> {
  const prefixes = await Promise.all([decidePrefix(test, bracket.from, sample), decidePrefix(test, bracket.to, sample)]);
  if (prefixes[0].decision !== 'reaches' || prefixes[1].decision !== 'not') return { outcome: 'undecided', window: null, prefixes };
  let from = bracket.from;
  let to = bracket.to;
  while (to - from > 1) {
    const mid = from + Math.floor((to - from) / 2);
    const p = await decidePrefix(test, mid, sample);
    prefixes.push(p);
    if (p.decision === 'reaches') from = mid;
    else if (p.decision === 'not') to = mid;
    else break;
  }
  return { outcome: 'window', window: { from, to }, prefixes };
}

const testOf = (t: SequentialRateTest): ForeclosureResult['test'] => ({ samples: t.most, threshold: t.threshold, error: t.error, look: t.look });

export interface ForeclosureQuestion {
  q: Question;
  promptIds: readonly number[];
  deployed: Generation;
  depth: DepthResult;
  test: SequentialRateTest;
  deployment: Deployment;
  /** The sample probe's decoding with the seed of continuation b from the prefix of `tokens` tokens. */
  decoding(tokens: number, b: number): Decoding;
  decode(ids: readonly number[]): string;
  generate(requests: GenerationRequest[]): Promise<Generation[]>;
  grade(text: string, g: Generation): { correct: boolean };
}

/** Runs one question's foreclosure window; a question with no bracket costs nothing. */
export async function foreclosureWindow(x: ForeclosureQuestion): Promise<ForeclosureResult> {
  const bracket = foreclosureBracket(x.depth, x.deployment.maxNewTokens);
  if (bracket === null) return { test: testOf(x.test), outcome: 'no-bracket', bracket: null, window: null, prefixes: [], cost: costOf([]) };
  const prefixText = (tokens: number) => x.decode(x.deployed.tokens.slice(0, tokens));
  const spent: Generation[][] = [];
  const sample = async (tokens: number, from: number, to: number): Promise<boolean[]> => {
    const cut = { at: '0' as const, tokens };
    const requests = Array.from({ length: to - from }, (_, i) => depthRequest(x.deployment, x.promptIds, x.deployed.tokens, cut, x.decoding(tokens, from + i)));
    const gens = await x.generate(requests);
    spent.push(gens);
    const text = prefixText(tokens);
    return gens.map((g) => x.grade(text + g.text, g).correct);
  };
  const narrowed = await narrowWindow(x.test, bracket, sample);
  const cost: Budget = costOf(spent.flat());
  if (narrowed.window === null) return { test: testOf(x.test), outcome: narrowed.outcome, bracket, window: null, prefixes: narrowed.prefixes, cost };
  // Where the window's bounds fall in the deployed text, so a viewer can outline it there.
  const charsAt = (tokens: number) => Math.min(x.deployed.text.length, prefixText(tokens).length);
  const window = { ...narrowed.window, chars: [charsAt(narrowed.window.from), charsAt(narrowed.window.to)] as [number, number] };
  return { test: testOf(x.test), outcome: narrowed.outcome, bracket, window, prefixes: narrowed.prefixes, cost };
}
