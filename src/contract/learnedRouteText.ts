/**
 * The learned router in words (docs/design/answer-blind-selection.md, "Learned router"): its setting, what each rule
 * recovers on the gain set beside the oracle (the routes probe's reach), and learned − global route
 * and the shuffled-label control − global route, paired on the same questions. Below
 * RATE_MIN_QUESTIONS paired questions only the counts are given, never a rate or a verdict.
 */
import type { Rate } from './interval';
import { formatPercent as pct } from './percent';
import { pairedVerdictText, type PairedDelta } from './pairedDecision';
import { RATE_MIN_QUESTIONS } from './questionStory';
import type { LearnedRouteSummary } from './runSummary';

function withInterval(r: Rate): string {
  if (r.n === 0) return '— (n = 0)';
  if (r.n < RATE_MIN_QUESTIONS) return `${r.successes}/${r.n}`;
  return `${r.successes}/${r.n} = ${pct(r.rate)} [${pct(r.ci.lo)}, ${pct(r.ci.hi)}]`;
}

function signed(x: number): string {
  return `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)} pts`;
}

/** "+12.0 pts [2.1, 21.0], McNemar p = 0.012 (9 vs 1 questions): better"; counts only under RATE_MIN_QUESTIONS. */
export function pairedLine(d: PairedDelta, first: string, second: string): string {
  const counts = `${first} alone right on ${d.gained}, ${second} alone on ${d.lost}, of ${d.n}`;
  if (d.n < RATE_MIN_QUESTIONS) return `${counts} (counts only below ${RATE_MIN_QUESTIONS} questions)`;
  const verdict = d.decision ? pairedVerdictText(d.decision) : '—';
  return `${signed(d.delta)} [${signed(d.ci.lo)}, ${signed(d.ci.hi)}], exact McNemar p = ${d.mcnemarP < 0.001 ? d.mcnemarP.toExponential(1) : d.mcnemarP.toFixed(3)} (${counts}): ${verdict}`;
}

/** What the router read, in words. */
export function routerReadsText(reads: LearnedRouteSummary['reads']): string {
  const state = "the deployment prefill's pooled state (projected to a few numbers)";
  return reads === 'pooled-state' ? state : reads === 'both' ? `the prompt's token ids (hashed) and ${state}` : "the prompt's token ids (hashed)";
}

export function learnedRouteLines(l: LearnedRouteSummary): string[] {
  const out = [
    `Learned route: cross-fitted over ${l.folds} folds (questions per fold ${l.foldSizes.join(', ')}), each fold's routes chosen by a router fit on the other folds only; ${l.model}; candidates: the ${l.poolSize} routes of the global-route pool; features: ${routerReadsText(l.reads)}; n = ${l.n}`,
    `  right on every question: learned ${withInterval(l.accuracy.learned)}; global route of the other folds ${withInterval(l.accuracy.global)}; shuffled-label control ${withInterval(l.accuracy.shuffled)}`,
  ];
  const r = l.retention;
  if (r?.learned.recovered) {
    const rec = (x: typeof r.learned) => (x.recovered ? withInterval(x.recovered.blind) : '—');
    out.push(`  recovered on the gain set (the deployment misses): learned ${rec(r.learned)}; global route ${rec(r.global)}; shuffled ${rec(r.shuffled)}; oracle (routes reach) ${withInterval(r.learned.recovered.reachable)}`);
    const lost = (x: typeof r.learned) => (x.lost ? withInterval(x.lost) : '—');
    out.push(`  lost on realized questions: learned ${lost(r.learned)}; global route ${lost(r.global)}; shuffled ${lost(r.shuffled)}`);
  }
  out.push(`  learned − global route on the gain set: ${pairedLine(l.versusGlobal.gainSet, 'learned', 'global')}`);
  out.push(`  learned − global route on every question: ${pairedLine(l.versusGlobal.all, 'learned', 'global')}`);
  out.push(`  shuffled-label control − global route on the gain set: ${pairedLine(l.shuffledVersusGlobal.gainSet, 'shuffled', 'global')}`);
  return out;
}
