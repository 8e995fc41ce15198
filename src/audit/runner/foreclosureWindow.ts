/**
 * The foreclosure window (docs/design/probes.md, "Foreclosure window"): for a depth-probed question, the
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

/** Continuations from..to−1 of the prefix of `tokens` tokens, wanted by the search. */
export interface SampleRequest {
  tokens: number;
  from: number;
  to: number;
}

/** What the bisection found: a window when both its bounds are decided. */
export interface NarrowedWindow {
  outcome: 'window' | 'undecided';
  window: { from: number; to: number } | null;
  prefixes: ForeclosurePrefix[];
}

/** Decides prefixes side by side: each look asks for the next samples of those still open. */
function* decidePrefixes(test: SequentialRateTest, tokens: readonly number[]): Generator<SampleRequest[], ForeclosurePrefix[], boolean[][]> {
  const state = tokens.map((t) => ({ tokens: t, samples: 0, successes: 0, decision: null as ForeclosurePrefix['decision'] | null }));
  for (let i = 0; i < test.looks.length; i++) {
    const open = state.filter((s) => s.decision === null);
    if (open.length === 0) break;
    const outcomes = yield open.map((s) => ({ tokens: s.tokens, from: s.samples, to: test.looks[i] }));
    open.forEach((s, j) => {
      s.successes += outcomes[j].filter(Boolean).length;
      s.samples = test.looks[i];
      const d = decisionAt(test, i, s.successes);
      if (d) s.decision = DECISION[d];
    });
  }
  return state.map((s) => ({ tokens: s.tokens, samples: s.samples, successes: s.successes, decision: s.decision ?? 'undecided' }));
}

/**
 * The search as a pure state machine: it yields the samples it wants next and is sent their
 * outcomes, so the audit drives it with generations and the calibration with seeded draws. The
 * bracket's bounds are decided first (side by side); the window then narrows by bisection while
 * its bounds are decided and more than one token apart, and a prefix decided neither way stops it.
 */
export function* windowSearch(test: SequentialRateTest, bracket: { from: number; to: number }): Generator<SampleRequest[], NarrowedWindow, boolean[][]> {
  const prefixes = yield* decidePrefixes(test, [bracket.from, bracket.to]);
  if (prefixes[0].decision !== 'reaches' || prefixes[1].decision !== 'not') return { outcome: 'undecided', window: null, prefixes };
  let from = bracket.from;
  let to = bracket.to;
  while (to - from > 1) {
    const mid = from + Math.floor((to - from) / 2);
    const [p] = yield* decidePrefixes(test, [mid]);
    prefixes.push(p);
    if (p.decision === 'reaches') from = mid;
    else if (p.decision === 'not') to = mid;
    else break;
  }
  return { outcome: 'window', window: { from, to }, prefixes };
}

/** Runs the search with a sampler that answers each request's outcomes. */
export async function narrowWindow(test: SequentialRateTest, bracket: { from: number; to: number }, sample: (requests: SampleRequest[]) => Promise<boolean[][]>): Promise<NarrowedWindow> {
  const search = windowSearch(test, bracket);
  for (let step = search.next(); ; ) {
    if (step.done) return step.value;
    step = search.next(await sample(step.value));
  }
}

/** The same, with a sampler that answers at once (seeded simulation). */
export function narrowWindowNow(test: SequentialRateTest, bracket: { from: number; to: number }, sample: (requests: SampleRequest[]) => boolean[][]): NarrowedWindow {
  const search = windowSearch(test, bracket);
  for (let step = search.next(); ; ) {
    if (step.done) return step.value;
    step = search.next(sample(step.value));
  }
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
  // Every open prefix's samples of a look go to the engine in one call.
  const sample = async (wanted: SampleRequest[]): Promise<boolean[][]> => {
    const requests = wanted.flatMap((w) => Array.from({ length: w.to - w.from }, (_, i) => depthRequest(x.deployment, x.promptIds, x.deployed.tokens, { at: '0', tokens: w.tokens }, x.decoding(w.tokens, w.from + i))));
    const gens = await x.generate(requests);
    spent.push(gens);
    let next = 0;
    return wanted.map((w) => {
      const text = prefixText(w.tokens);
      return gens.slice(next, (next += w.to - w.from)).map((g) => x.grade(text + g.text, g).correct);
    });
  };
  const narrowed = await narrowWindow(x.test, bracket, sample);
  const cost: Budget = costOf(spent.flat());
  if (narrowed.window === null) return { test: testOf(x.test), outcome: narrowed.outcome, bracket, window: null, prefixes: narrowed.prefixes, cost };
  // Where the window's bounds fall in the deployed text, so a viewer can outline it there.
  const charsAt = (tokens: number) => Math.min(x.deployed.text.length, prefixText(tokens).length);
  const window = { ...narrowed.window, chars: [charsAt(narrowed.window.from), charsAt(narrowed.window.to)] as [number, number] };
  return { test: testOf(x.test), outcome: narrowed.outcome, bracket, window, prefixes: narrowed.prefixes, cost };
}
