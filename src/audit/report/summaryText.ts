/**
 * The terminal wording of a run summary and of a checkpoint comparison: every rate with its n and
 * 95% interval, the Δs with their paired intervals and McNemar p-values.
 */
import type { Comparison, PairedDelta } from '../results/compare';
import type { Rate } from '../results/stats';
import type { RunSummary } from '../results/summary';

export function pct(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '—' : `${(100 * x).toFixed(digits)}%`;
}

export function rateText(r: Rate | undefined): string {
  if (!r || r.n === 0) return '— (n = 0)';
  return `${pct(r.rate)}  [${pct(r.ci.lo)}, ${pct(r.ci.hi)}]  ${r.successes}/${r.n}`;
}

function signedPct(x: number): string {
  if (!Number.isFinite(x)) return '—';
  return `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)} pts`;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

export function formatSummary(s: RunSummary, title = 'Reach Audit summary'): string {
  const out: string[] = [`${title} — ${s.n} question${s.n === 1 ? '' : 's'} (rates with 95% Wilson intervals)`];
  out.push(`  ${pad('realized (deployment)', 34)} ${rateText(s.realized)}`);
  for (const [p, r] of Object.entries(s.reachable)) {
    const b = s.budget[p];
    out.push(`  ${pad(`reachable by ${p}`, 34)} ${rateText(r)}   budget ${b ? `${b.generations} generations, ${b.tokens} tokens, ${b.blockApplications} block applications` : '—'}`);
  }
  if (s.probes.length > 1) out.push(`  ${pad('reachable by any probe (ceiling)', 34)} ${rateText(s.reachableAny)}`);
  for (const [p, sel] of Object.entries(s.blind)) {
    for (const [name, r] of Object.entries(sel)) {
      const note = name === 'global-route' && s.globalRoute ? `   (held-out split; realized there ${rateText(s.globalRoute.heldOut.realized)})` : '';
      out.push(`  ${pad(`answer-blind ${p} → ${name}`, 34)} ${rateText(r)}${note}`);
    }
  }
  for (const [p, curve] of Object.entries(s.passAtK)) {
    const ks = Object.keys(curve).map(Number);
    const shown = ks.filter((k) => k === 1 || k === ks[ks.length - 1] || (k & (k - 1)) === 0);
    if (shown.length > 0) out.push(`  ${pad(`pass@k ${p} (${s.passAtKKind[p]})`, 34)} ${shown.map((k) => `@${k} ${pct(curve[String(k)])}`).join('  ')}   n = ${s.reachable[p]?.n ?? s.n}`);
  }
  out.push(`  states: ${s.states.realized} realized, ${s.states.reachableNotRealized} reachable but not realized, ${s.states.unreached} unreached; ${s.truncated.realized} deployed outputs hit the token limit`);
  if (s.globalRoute) {
    const g = s.globalRoute;
    out.push(`  global route: ${g.route ? `[${g.route.join(',')}]` : '—'} chosen from a pool of ${g.poolSize} on ${g.selection.n} selection questions (${rateText(g.selection.accuracy)}), scored on ${g.heldOut.n} held-out`);
  }
  if (s.repair) {
    const r = s.repair;
    out.push(`  repair scan: failure set |F| = ${r.failureSetSize}; identified block ${r.identifiedBlock ?? '—'} (chosen on ${r.selectionSize} selection questions)`);
    out.push(`    repair rate on held-out F: ${r.n === 0 ? '— (n = 0)' : `${pct(r.repairRate)}  [${pct(r.ci?.lo)}, ${pct(r.ci?.hi)}]  ${r.repaired}/${r.n}`}`);
    out.push(`    damage to realized questions: ${r.damageN === 0 ? '— (n = 0)' : `${pct(r.damageRate)}  [${pct(r.damageCi?.lo)}, ${pct(r.damageCi?.hi)}]  n = ${r.damageN}`}`);
    const blocks = r.byBlock.map((b) => `${b.block}: ${b.repair.successes}/${b.repair.n} repaired, ${b.damage.successes}/${b.damage.n} broken`);
    if (blocks.length > 0) out.push(`    by block — ${blocks.join('; ')}`);
  }
  const c = s.cost;
  out.push(`  other cost: deployment ${c.deployment.generations} generations; global route pool ${c.globalRoutes.generations}; repair scan ${c.repair.generations}`);
  return out.join('\n');
}

function deltaText(d: PairedDelta): string {
  return `${pct(d.base)} → ${pct(d.tuned)}   Δ ${signedPct(d.delta)}  [${signedPct(d.ci.lo)}, ${signedPct(d.ci.hi)}]   McNemar p = ${d.mcnemarP < 0.001 ? d.mcnemarP.toExponential(2) : d.mcnemarP.toFixed(3)} (${d.gained} gained, ${d.lost} lost)`;
}

export function formatComparison(c: Comparison): string {
  const out: string[] = [`Checkpoint comparison — ${c.n} paired questions (paired bootstrap 95% intervals, 10,000 resamples)`];
  if (c.unmatched.baseOnly.length + c.unmatched.tunedOnly.length > 0) {
    out.push(`  left out: ${c.unmatched.baseOnly.length} questions only in the base run, ${c.unmatched.tunedOnly.length} only in the tuned run`);
  }
  out.push(`  ${pad('realized', 24)} ${deltaText(c.realized)}`);
  out.push(`  ${pad('reachable ceiling', 24)} ${deltaText(c.reachableCeiling)}`);
  for (const [p, d] of Object.entries(c.reachable)) out.push(`  ${pad(`reachable by ${p}`, 24)} ${deltaText(d)}`);
  out.push('  transitions (base → tuned):');
  const states = Object.keys(c.transitions) as (keyof Comparison['transitions'])[];
  out.push(`    ${pad('', 12)}${states.map((s) => pad(s, 12)).join('')}`);
  for (const from of states) out.push(`    ${pad(from, 12)}${states.map((to) => pad(String(c.transitions[from][to].length), 12)).join('')}`);
  const nr = c.newlyRealized;
  out.push(`  newly realized: ${nr.n}; already reachable by base ${rateText(nr.alreadyReachable)}; newly reachable ${rateText(nr.newlyReachable)}`);
  return out.join('\n');
}
