/**
 * The fork probe over a run (docs/design/probes.md, "Forks"): of the questions the deployment does not
 * realize, the share a fork saves (Wilson), within the failure set too; the entropy arm against the
 * random-position arm, paired per question (Newcombe's paired score interval and the exact McNemar
 * test, decided against the margin; under 20 questions the counts alone); each arm's forks and
 * their save rate; where the earliest saving fork falls in the deployed output.
 */
import { pairedDelta, DEFAULT_MARGIN } from '../stats';
import { rateOf, type Budget, type ForkResult, type ForkSummary, type PairedDelta, type QuestionRecord } from '../../contract';

/** Fewest questions a paired interval and verdict are given for; under it, counts only (the design's rule). */
export const FORK_MIN_PAIRED = 20;

/** The quarter (0–3) of an output of `eligible` tokens that position `p` falls in. */
function quarterIndex(p: number, outputTokens: number): 0 | 1 | 2 | 3 {
  if (outputTokens <= 0) return 0;
  return Math.min(3, Math.max(0, Math.floor((4 * p) / outputTokens))) as 0 | 1 | 2 | 3;
}

export function forkSummary(records: readonly QuestionRecord[], margin: number = DEFAULT_MARGIN): ForkSummary | undefined {
  const withFork = records.filter((r): r is QuestionRecord & { fork: ForkResult } => r.fork !== undefined && !r.skipped);
  if (withFork.length === 0) return undefined;
  const results = withFork.map((r) => r.fork);
  const n = results.length;
  const inF = withFork.filter((r) => Object.values(r.reachable).some(Boolean));
  const entropy = results.map((f) => f.savedBy.entropy);
  const random = results.map((f) => f.savedBy.random);
  const entropyOnly = entropy.filter((e, i) => e && !random[i]).length;
  const randomOnly = random.filter((x, i) => x && !entropy[i]).length;
  const forksOf = (arm: 'entropy' | 'random') => {
    const tried = results.flatMap((f) => f.forks.filter((t) => t.arms.includes(arm)));
    return rateOf(tried.filter((t) => t.saves).length, tried.length);
  };
  const earliestQuarter: [number, number, number, number] = [0, 0, 0, 0];
  for (const r of withFork) {
    if (r.fork.earliest === null) continue;
    earliestQuarter[quarterIndex(r.fork.forks[r.fork.earliest].position, r.deployedTokens?.steps.length ?? 0)]++;
  }
  const cost: Budget = { generations: 0, tokens: 0, blockApplications: 0 };
  for (const f of results) {
    cost.generations += f.cost.generations;
    cost.tokens += f.cost.tokens;
    cost.blockApplications += f.cost.blockApplications;
  }
  return {
    n,
    budget: results[0].budget,
    positions: results[0].positions,
    alternatives: results[0].alternatives,
    saved: rateOf(results.filter((f) => f.saved).length, n),
    savedInFailureSet: rateOf(inF.filter((r) => r.fork.saved).length, inF.length),
    entropy: rateOf(entropy.filter(Boolean).length, n),
    random: rateOf(random.filter(Boolean).length, n),
    entropyOnly,
    randomOnly,
    ...(n >= FORK_MIN_PAIRED ? { entropyVsRandom: pairedDelta(random, entropy, margin) } : {}),
    forks: { entropy: forksOf('entropy'), random: forksOf('random') },
    earliestQuarter,
    cost,
  };
}

/**
 * Did training move the forks? Over the questions neither checkpoint realizes and both forked (the
 * paired failure sets, matched by id): saved by a fork, base against tuned. From 20 paired
 * questions on, the paired difference (tuned − base) with its interval and verdict; under 20, the
 * counts alone. Questions only one checkpoint forked are counted apart.
 */
export interface ForkTransition {
  paired: number;
  /** Saved on base, not on tuned; not on base, saved on tuned. */
  lost: number;
  gained: number;
  /** Saved on both. */
  both: number;
  delta?: PairedDelta;
  /** Forked on one checkpoint only (realized by the other). */
  baseOnly: number;
  tunedOnly: number;
}

export function forkTransition(base: readonly QuestionRecord[], tuned: readonly QuestionRecord[], margin: number = DEFAULT_MARGIN): ForkTransition | undefined {
  const forked = (rs: readonly QuestionRecord[]) => new Map(rs.filter((r) => r.fork && !r.skipped).map((r) => [r.id, r.fork as ForkResult]));
  const b = forked(base);
  const t = forked(tuned);
  if (b.size === 0 || t.size === 0) return undefined;
  const ids = [...b.keys()].filter((id) => t.has(id));
  const bs = ids.map((id) => (b.get(id) as ForkResult).saved);
  const ts = ids.map((id) => (t.get(id) as ForkResult).saved);
  const lost = bs.filter((x, i) => x && !ts[i]).length;
  const gained = bs.filter((x, i) => !x && ts[i]).length;
  return {
    paired: ids.length,
    lost,
    gained,
    both: bs.filter((x, i) => x && ts[i]).length,
    ...(ids.length >= FORK_MIN_PAIRED ? { delta: pairedDelta(bs, ts, margin) } : {}),
    baseOnly: b.size - ids.length,
    tunedOnly: t.size - ids.length,
  };
}
