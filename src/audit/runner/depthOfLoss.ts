/**
 * Depth of loss (docs/design/probes.md, "Depth of loss"): for a failure-set question, where in its own
 * deployed output the answer stops being reachable. The deployed output's tokens are cut at 0, ¼,
 * ½ and ¾ of their number and right after its last line break; from each prefix, B seeded
 * continuations are sampled with the sample probe's decoding, each prompt being the question's
 * prompt followed by exactly the deployed prefix tokens. Each continuation is graded together with
 * its prefix, as one output. The deepest prefix still reaching the answer and the first one after
 * it (the point of no return) say where the deployment lost an answer it could reach.
 */
import type { Decoding, Generation, GenerationRequest } from '../../engine';
import type { Budget, DepthMark, DepthPoint, DepthResult, Deployment } from '../../contract';
import type { Question } from '../dataset';
import { costOf, deploymentRequest } from '../probes';

const FRACTIONS: readonly [DepthMark, number][] = [['0', 0], ['1/4', 0.25], ['1/2', 0.5], ['3/4', 0.75]];
/** The most prefixes one question is cut at: the fractions and the last line break. */
export const MOST_DEPTH_CUTS = FRACTIONS.length + 1;
/** Characters of the deployed output shown on each side of the point of no return. */
export const NO_RETURN_CONTEXT = 80;

export interface DepthCut {
  at: DepthMark;
  tokens: number;
}

/**
 * The prefixes to resample from, in order of depth. `usable` leaves out the token that stopped the
 * output (eos or the stop string's), since nothing follows it; a cut that would leave no room for a
 * continuation within the deployment's token budget is dropped. The line-break cut is right after
 * the last usable token whose text holds a line break, when there is one. Cuts are distinct
 * prefixes: where two marks fall at the same token (every fraction of a one-token output is the
 * empty prefix), the first is kept, and no generations are spent on the same prefix twice.
 */
export function depthCuts(deployed: Pick<Generation, 'tokens' | 'finishReason'>, maxNewTokens: number, tokenText: (id: number) => string): DepthCut[] {
  const usable = deployed.finishReason === 'stop' ? Math.max(0, deployed.tokens.length - 1) : deployed.tokens.length;
  const cuts: DepthCut[] = FRACTIONS.map(([at, f]) => ({ at, tokens: Math.floor(f * usable) }));
  for (let i = usable - 1; i >= 0; i--) {
    if (tokenText(deployed.tokens[i]).includes('\n')) {
      cuts.push({ at: 'last-line', tokens: i + 1 });
      break;
    }
  }
  // Stable: a line-break cut at the same depth as a fraction comes after it, and is dropped as the same prefix.
  const sorted = cuts.filter((c) => maxNewTokens - c.tokens >= 1).sort((a, b) => a.tokens - b.tokens);
  return sorted.filter((c, i) => i === 0 || c.tokens !== sorted[i - 1].tokens);
}

/**
 * Fewer than two distinct prefixes (an empty or one-token output): there is no depth to lose the
 * answer at, so the record says the output was too short to cut rather than a quarter.
 */
export const MIN_DEPTH_CUTS = 2;

/** Continuation b from `cut`: the prompt, then exactly the deployed prefix, with the rest of the budget. */
export function depthRequest(d: Deployment, promptIds: readonly number[], deployedTokens: readonly number[], cut: DepthCut, decoding: Decoding): GenerationRequest {
  return { ...deploymentRequest(d, [...promptIds, ...deployedTokens.slice(0, cut.tokens)], decoding), maxNewTokens: d.maxNewTokens - cut.tokens };
}

/** The quarter of the output holding a cut at `tokens` of `total` (a cut at the very start is in the first). */
function quarterOf(tokens: number, total: number): 1 | 2 | 3 | 4 {
  if (total <= 0) return 1;
  return Math.min(4, Math.max(1, Math.ceil((4 * tokens) / total))) as 1 | 2 | 3 | 4;
}

/** Verdicts of every point's continuations, in the cuts' order; `graded` grades prefix + continuation. */
export function depthResult(
  budget: number,
  usableTokens: number,
  cuts: readonly DepthCut[],
  verdicts: readonly { correct: boolean; answer: string | null }[][],
  deployedOutput: string,
  prefixText: (tokens: number) => string,
  generations: readonly Generation[],
): DepthResult {
  // Where each cut falls in the deployed text, so a viewer can mark it there.
  const charsAt = (tokens: number) => Math.min(deployedOutput.length, prefixText(tokens).length);
  const points: DepthPoint[] = cuts.map((c, i) => ({
    at: c.at,
    tokens: c.tokens,
    chars: charsAt(c.tokens),
    correct: verdicts[i].map((v) => v.correct),
    answers: verdicts[i].map((v) => v.answer),
    reached: verdicts[i].some((v) => v.correct),
  }));
  let deepest: number | null = null;
  points.forEach((p, i) => {
    if (p.reached) deepest = i;
  });
  const next = deepest === null ? 0 : deepest + 1;
  let noReturn: DepthResult['noReturn'] = null;
  if (next < points.length) {
    const at = charsAt(points[next].tokens);
    noReturn = { point: next, before: deployedOutput.slice(Math.max(0, at - NO_RETURN_CONTEXT), at), after: deployedOutput.slice(at, at + NO_RETURN_CONTEXT) };
  }
  const lostIn: DepthResult['lostIn'] =
    points.length < MIN_DEPTH_CUTS ? 'too-short' : deepest === null ? 'start' : noReturn === null ? 4 : quarterOf(points[noReturn.point].tokens, usableTokens);
  const cost: Budget = costOf(generations);
  return { budget, outputTokens: usableTokens, points, deepestReached: deepest, noReturn, lostIn, cost };
}

export interface DepthQuestion {
  q: Question;
  promptIds: readonly number[];
  deployed: Generation;
  budget: number;
  deployment: Deployment;
  /** The sample probe's decoding with continuation b's seed from cut `at`. */
  decoding(at: DepthMark, b: number): Decoding;
  decode(ids: readonly number[]): string;
  generate(requests: GenerationRequest[]): Promise<Generation[]>;
  grade(text: string, g: Generation): { correct: boolean; answer: string | null };
}

/** Runs one question's depth probe: every continuation of every cut in one call. */
export async function depthOfLoss(x: DepthQuestion): Promise<DepthResult> {
  const cuts = depthCuts(x.deployed, x.deployment.maxNewTokens, (id) => x.decode([id]));
  const usable = x.deployed.finishReason === 'stop' ? Math.max(0, x.deployed.tokens.length - 1) : x.deployed.tokens.length;
  const requests = cuts.flatMap((c) => Array.from({ length: x.budget }, (_, b) => depthRequest(x.deployment, x.promptIds, x.deployed.tokens, c, x.decoding(c.at, b))));
  const gens = await x.generate(requests);
  const prefixText = (tokens: number) => x.decode(x.deployed.tokens.slice(0, tokens));
  const verdicts = cuts.map((c, i) => gens.slice(i * x.budget, (i + 1) * x.budget).map((g) => x.grade(prefixText(c.tokens) + g.text, g)));
  return depthResult(x.budget, usable, cuts, verdicts, x.deployed.text, prefixText, gens);
}
