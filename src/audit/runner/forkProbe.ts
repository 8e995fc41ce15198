/**
 * The fork probe (docs/design/probes.md, "Forks"): for a question the deployment does not realize, where
 * in its deployed output another token would have kept the answer. A fork takes, at one position of
 * the deployed output, one of the most likely tokens other than the deployed one, and generation
 * goes on from there twice: with the deployment's decoding and with the sample probe's. Forks are
 * taken at the output's highest-entropy positions (the entropy arm) and, with the same budget, at
 * seeded random positions (the random arm, the null that says whether entropy finds forks better
 * than chance).
 *
 * A branch continues the deployed generation: the question's prompt, the deployed prefix and the
 * forced token, the prefix's caches taken from the deployed sequence itself (the engine keeps its
 * state, `keepState`), so a branch computes only the forced token and what it generates, with the
 * numbers the deployment had at that position.
 */
import type { Decoding, Generation, GenerationRequest } from '../../engine';
import { InputError } from '../../common';
import type { Budget, DeployedTokens, Deployment, ForkArm, ForkBranch, ForkResult, ForkTry } from '../../contract';
import { costOf, deploymentRequest } from '../probes';

/** Tokens kept per position in the deployed output's token record: the deployed one and up to three alternatives. */
export const FORK_TOKEN_RECORD_K = 4;
/** Generations of one fork: a greedy and a sampled continuation. */
const PER_FORK = 2;
/** Arms sharing the budget: the highest-entropy positions and the random ones. */
const ARMS = 2;

export interface ForkPlan {
  budget: number;
  positions: number;
  alternatives: number;
  k: number;
}

/**
 * How --fork-probe B spends B per question: half on each arm; each arm forks at `positions`
 * positions (default B / 4), each position at `alternatives` tokens (as many as fit, at most k − 1),
 * each fork continued twice. The generations left over when B is not a multiple go unspent.
 */
export function forkPlan(budget: number, positions?: number): ForkPlan {
  const least = ARMS * PER_FORK;
  if (!Number.isInteger(budget) || budget < least) {
    throw new InputError(`--fork-probe ${budget}: expected at least ${least} generations per question (one position per arm, the entropy arm and the random one, each continued greedily and sampled)`);
  }
  const p = positions ?? Math.max(1, Math.floor(budget / least));
  if (!Number.isInteger(p) || p < 1 || least * p > budget) {
    throw new InputError(`--fork-positions ${p}: ${p} positions per arm take ${least * p} generations (${ARMS} arms × ${PER_FORK} continuations), more than --fork-probe ${budget}; lower --fork-positions to at most ${Math.floor(budget / least)} or raise --fork-probe`);
  }
  const alternatives = Math.min(FORK_TOKEN_RECORD_K - 1, Math.floor(budget / (least * p)));
  return { budget, positions: p, alternatives, k: FORK_TOKEN_RECORD_K };
}

/** The deployed output's token record, with each token's text. */
export function deployedTokensOf(g: Generation, k: number, decode: (ids: readonly number[]) => string): DeployedTokens {
  const steps = g.tokenRecord ?? [];
  if (steps.length !== g.tokens.length) throw new Error(`the deployed output has ${g.tokens.length} tokens but a token record of ${steps.length}`);
  return { k, steps: g.tokens.map((token, i) => ({ token, text: decode([token]), entropy: steps[i].entropy, top: steps[i].top.map(([t, lp]) => [t, lp]) })) };
}

/** A position a fork can be taken at, with its alternatives in order of probability. */
export interface ForkSite {
  position: number;
  entropy: number;
  deployed: { token: number; text: string; logprob: number };
  alternatives: { token: number; text: string; logprob: number }[];
}

/**
 * The positions a fork can be taken at: room left for a continuation within the token budget,
 * and an alternative that spells text (a special token such as end-of-sequence ends the output
 * there, so nothing could continue after it).
 */
export function forkSites(record: DeployedTokens, logprobs: readonly number[], maxNewTokens: number, decode: (ids: readonly number[]) => string): ForkSite[] {
  const sites: ForkSite[] = [];
  record.steps.forEach((s, position) => {
    if (position + 1 >= maxNewTokens) return;
    const alternatives = s.top.filter(([t]) => t !== s.token).map(([token, logprob]) => ({ token, text: decode([token]), logprob })).filter((a) => a.text.length > 0);
    if (alternatives.length === 0) return;
    const own = s.top.find(([t]) => t === s.token);
    const logprob = own ? own[1] : logprobs[position];
    sites.push({ position, entropy: s.entropy, deployed: { token: s.token, text: s.text, logprob }, alternatives });
  });
  return sites;
}

/**
 * The sites each arm forks at, in order of position: the entropy arm's `count` highest-entropy
 * sites (ties: the earlier), the random arm's `count` drawn uniformly without replacement from all
 * of them by `random` (so it may draw high-entropy sites too: it is the null of no information).
 */
export function chooseSites(sites: readonly ForkSite[], count: number, random: () => number): { site: ForkSite; arms: ForkArm[] }[] {
  const byEntropy = sites.map((_, i) => i).sort((a, b) => sites[b].entropy - sites[a].entropy || a - b).slice(0, count);
  const pool = sites.map((_, i) => i);
  const drawn: number[] = [];
  for (let j = 0; j < Math.min(count, pool.length); j++) {
    const pick = j + Math.floor(random() * (pool.length - j));
    [pool[j], pool[pick]] = [pool[pick], pool[j]];
    drawn.push(pool[j]);
  }
  const chosen = new Map<number, ForkArm[]>();
  for (const i of byEntropy) chosen.set(i, ['entropy']);
  for (const i of drawn) chosen.set(i, [...(chosen.get(i) ?? []), 'random']);
  return [...chosen.entries()].sort((a, b) => a[0] - b[0]).map(([i, arms]) => ({ site: sites[i], arms }));
}

/**
 * The branch at `position` with `token` forced: the prompt, the deployed prefix and the token, with
 * what is left of the budget. It continues the deployed generation, so the engine starts it from
 * the deployed sequence's own caches at `position` (kept by its `keepState`).
 */
export function forkRequest(d: Deployment, promptIds: readonly number[], deployedTokens: readonly number[], position: number, token: number, decoding: Decoding): GenerationRequest {
  return {
    ...deploymentRequest(d, [...promptIds, ...deployedTokens.slice(0, position), token], decoding),
    maxNewTokens: d.maxNewTokens - position - 1,
    continues: { promptTokens: promptIds.length, generatedTokens: position },
  };
}

export interface ForkQuestion {
  promptIds: readonly number[];
  deployed: Generation;
  record: DeployedTokens;
  plan: ForkPlan;
  deployment: Deployment;
  /** Draws the random arm's positions (keyed by run seed and question). */
  random: () => number;
  /** The deployment's decoding and the sample probe's, for the fork at (position, token). */
  decodings(position: number, token: number): { greedy: Decoding; sample: Decoding };
  decode(ids: readonly number[]): string;
  generate(requests: GenerationRequest[]): Promise<Generation[]>;
  /** Grades a whole output (prefix + forced token + continuation) with the continuation's finish. */
  grade(text: string, g: Generation): { correct: boolean; answer: string | null; truncated: boolean };
}

/** Runs one question's forks: every branch in one call. */
export async function forkProbe(x: ForkQuestion): Promise<ForkResult> {
  const sites = forkSites(x.record, x.deployed.logprobs, x.deployment.maxNewTokens, x.decode);
  const chosen = chooseSites(sites, x.plan.positions, x.random);
  const tries = chosen.flatMap(({ site, arms }) => site.alternatives.slice(0, x.plan.alternatives).map((alternative) => ({ site, arms, alternative })));
  const requests = tries.flatMap(({ site, alternative }) => {
    const dec = x.decodings(site.position, alternative.token);
    return [dec.greedy, dec.sample].map((d) => forkRequest(x.deployment, x.promptIds, x.deployed.tokens, site.position, alternative.token, d));
  });
  const gens = await x.generate(requests);
  const branch = (prefix: string, g: Generation): ForkBranch => {
    const v = x.grade(prefix + g.text, g);
    return { correct: v.correct, answer: v.answer, truncated: v.truncated, continuation: g.text, tokens: g.cost.generatedTokens };
  };
  const forks: ForkTry[] = tries.map(({ site, arms, alternative }, i) => {
    const prefix = x.decode([...x.deployed.tokens.slice(0, site.position), alternative.token]);
    const greedy = branch(prefix, gens[PER_FORK * i]);
    const sample = branch(prefix, gens[PER_FORK * i + 1]);
    return { arms, position: site.position, entropy: site.entropy, deployed: site.deployed, alternative, greedy, sample, saves: greedy.correct || sample.correct };
  });
  const earliest = forks.findIndex((f) => f.saves);
  const cost: Budget = costOf(gens);
  return {
    budget: x.plan.budget,
    positions: x.plan.positions,
    alternatives: x.plan.alternatives,
    eligible: sites.length,
    forks,
    saved: earliest >= 0,
    savedBy: { entropy: forks.some((f) => f.saves && f.arms.includes('entropy')), random: forks.some((f) => f.saves && f.arms.includes('random')) },
    earliest: earliest >= 0 ? earliest : null,
    cost,
  };
}
