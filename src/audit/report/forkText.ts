/**
 * The fork probe's lines (docs/design/probes.md, "Forks"): the share of unrealized questions a fork saves,
 * the entropy arm against the random-position null (paired; counts only under 20 questions), each
 * arm's save rate per fork, where the earliest saving forks fall, and what it cost.
 */
import { storedVerdictText, type ForkSummary, type PairedDelta, type Rate } from '../../contract';
import type { ForkTransition } from '../results';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${(100 * Math.abs(x)).toFixed(1)}`;
const share = (r: Rate) => (r.n === 0 ? '— (n = 0)' : `${pct(r.rate)} [${pct(r.ci.lo)}, ${pct(r.ci.hi)}] ${r.successes}/${r.n}`);
const p = (x: number) => (x < 0.001 ? x.toExponential(2) : x.toFixed(3));

/** A paired difference in words: Δ with its interval, McNemar p and verdict. */
export function forkDeltaText(d: PairedDelta, first: string, second: string): string {
  return `${second} ${pct(d.tuned)} vs ${first} ${pct(d.base)}: Δ ${signed(d.delta)} pts [${signed(d.ci.lo)}, ${signed(d.ci.hi)}] (Newcombe paired 95%), exact McNemar p = ${p(d.mcnemarP)}, n = ${d.n}${d.decision ? `; ${storedVerdictText(d.decision)}` : ''}`;
}

export function entropyVsRandomText(f: ForkSummary): string {
  const counts = `saved by the entropy arm only ${f.entropyOnly}, by the random arm only ${f.randomOnly}`;
  if (!f.entropyVsRandom) return `entropy vs random positions: ${counts} — ${f.n} questions, under 20: counts only`;
  return `entropy vs random positions (questions saved): ${forkDeltaText(f.entropyVsRandom, 'random', 'entropy')} (${counts})`;
}

export function forkTransitionText(t: ForkTransition): string {
  const apart = `forked on base only ${t.baseOnly}, on tuned only ${t.tunedOnly}`;
  if (!t.delta) return `forks base → tuned: ${t.paired} questions unrealized by both; saved on base only ${t.lost}, on tuned only ${t.gained}, on both ${t.both} — under 20: counts only (${apart})`;
  return `forks base → tuned, on the ${t.paired} questions unrealized by both: saved ${forkDeltaText(t.delta, 'base', 'tuned')} (${apart})`;
}

export function forkLines(f: ForkSummary): string[] {
  const q = f.earliestQuarter;
  return [
    `  forks (${f.n} unrealized question${f.n === 1 ? '' : 's'}, B ${f.budget}: ${f.positions} highest-entropy and ${f.positions} random position${f.positions === 1 ? '' : 's'}, ${f.alternatives} alternative${f.alternatives === 1 ? '' : 's'} each, greedy and sampled): saved by a fork ${share(f.saved)}; within the failure set ${share(f.savedInFailureSet)}`,
    `      saved by the entropy arm ${share(f.entropy)} · by the random arm ${share(f.random)}; forks that save: entropy ${share(f.forks.entropy)} · random ${share(f.forks.random)}`,
    `      ${entropyVsRandomText(f)}`,
    `      earliest saving fork by quarter of the deployed output (counts): ${q.join(' / ')}; cost ${f.cost.generations} generations, ${f.cost.tokens} tokens, ${f.cost.blockApplications} block applications`,
  ];
}
