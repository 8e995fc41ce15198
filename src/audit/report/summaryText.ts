/**
 * The terminal wording of a run summary and of a checkpoint comparison: every rate with its n and
 * 95% interval, the Δs with their paired intervals and McNemar p-values.
 */
import {
  formatPercent as pct,
  MIN_BOOTSTRAP_QUESTIONS,
  storedVerdictText,
  type ChanceLevel,
  type Comparison,
  type PairedDelta,
  type ProbeComparison,
  type ProbeExhaustion,
  type RepairNull,
  type Rate,
  type RunSummary,
  learnedRouteLines,
} from '../../contract';
import { retentionLine } from './retentionText';
import { blindDroppedText } from './blindDroppedText';
import { depthLines } from './depthText';
import { foreclosureLines, foreclosureMovesText } from './foreclosureText';
import { forkLines } from './forkText';

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

function pValueText(p: number): string {
  return p < 0.001 ? p.toExponential(2) : p.toFixed(3);
}

function span(r: { min: number; max: number }): string {
  return r.min === r.max ? String(r.min) : `${r.min}–${r.max}`;
}

/** The chance line of a choice-format rate, and a plain verdict when it is not above chance. */
export function chanceText(c: ChanceLevel): string {
  const points = (x: number) => { const t = (100 * x).toFixed(1); return `${x > 0 && Number(t) !== 0 ? '+' : ''}${Number(t) === 0 ? '0.0' : t}`; };
  // The share beyond chance is bounded only above chance; elsewhere the difference from the level (in points) is shown instead.
  // The difference, not the share (x − c) / (1 − c): the share is unbounded below chance, and shown only above it its
  // interval covers 85–89% at 20–50 questions (calibration table); the difference's covers ≥ 95%.
  const beyond = c.overChance
    ? `observed − chance ${points(c.overChance.estimate)} pts [${points(c.overChance.lo)}, ${points(c.overChance.hi)}] (Wilson, shifted)`
    : c.beyondChance
      ? `beyond chance ${pct(c.beyondChance.estimate)} [${pct(c.beyondChance.lo)}, ${pct(c.beyondChance.hi)}]`
      : 'beyond chance —';
  const verdict = c.aboveChance ? `above chance (exact p = ${pValueText(c.pValue)})` : `NOT above chance: uniform guessing reaches ${pct(c.level)} (exact p = ${pValueText(c.pValue)})`;
  return `chance ${pct(c.level)} (${span(c.options)} options × ${span(c.attempts)} attempt${c.attempts.max === 1 ? '' : 's'}); ${beyond}; ${verdict}`;
}

/** The identified block against a random block, by truncation, and its net effect (RepairNull). */
export function repairNullLines(block: number | null, r: RepairNull): string[] {
  const e = r.netEffect;
  return [
    `against a random block on the same ${r.n} held-out questions: ${pct(r.randomBlock.rate)}${r.randomBlock.lo === null || r.randomBlock.hi === null ? '' : ` [${pct(r.randomBlock.lo)}, ${pct(r.randomBlock.hi)}]`} (median block ${pct(r.medianBlock)}); identified − random ${signedPct(r.difference.estimate)}${r.difference.lo === null || r.difference.hi === null ? ` (no bootstrap interval below ${MIN_BOOTSTRAP_QUESTIONS} questions)` : ` [${signedPct(r.difference.lo)}, ${signedPct(r.difference.hi)}] (bootstrap)`}; exact one-sided (Poisson-binomial) p = ${pValueText(r.pValue)}`,
    `held-out repair where the deployed output hit the token limit: ${rateText(r.byTruncation.truncated)}; where it did not: ${rateText(r.byTruncation.notTruncated)}`,
    `net effect of silencing block ${block ?? '—'} (held-out F and every realized question, n = ${e.n}): correct ${pct(e.base)} → ${pct(e.tuned)}, Δ ${signedPct(e.delta)} [${signedPct(e.ci.lo)}, ${signedPct(e.ci.hi)}] (paired score interval), McNemar p = ${pValueText(e.mcnemarP)} (${e.gained} repaired, ${e.lost} broken); ${storedVerdictText(e.decision)}`,
  ];
}

export function exhaustionText(e: ProbeExhaustion | undefined): string | undefined {
  if (!e || e.questions === 0) return undefined;
  const evaluated = e.examples.map((x) => x.evaluated);
  return `ran out of distinct routes on ${e.questions} question${e.questions === 1 ? '' : 's'} (evaluated ${span({ min: Math.min(...evaluated), max: Math.max(...evaluated) })} of ${e.examples[0].budget})`;
}

const ratioText = (x: number | null | undefined) => (typeof x === 'number' && Number.isFinite(x) ? `${x.toFixed(2)}×` : '—');

/** The paired comparison of random routes and the search, labelled unmatched when the budgets differ. */
export function probeComparisonLines(c: ProbeComparison): string[] {
  const label = c.match === 'matched' ? `matched budget, ${c.budget.a} generations each` : `UNMATCHED budgets: ${c.a} ${c.budget.a} vs ${c.b} ${c.budget.b} generations per question`;
  const d = c.difference;
  const g = c.gainSet;
  const m = c.gainSetAtMatchedBlockApplications;
  return [
    `${c.a} vs ${c.b} (${label}; n = ${c.n} paired questions): only ${c.a} ${c.onlyA}, only ${c.b} ${c.onlyB}, both ${c.both}, neither ${c.neither}; exact McNemar p = ${pValueText(c.mcnemarP)}`,
    `    Δ reachable (${c.a} − ${c.b})${g ? ', all questions' : ''} ${d ? `${signedPct(d.estimate)}  [${signedPct(d.lo)}, ${signedPct(d.hi)}] (${d.method === 'newcombe-score' ? 'paired score interval' : 'paired bootstrap'})` : '—'}${c.decision ? `; verdict: ${storedVerdictText(c.decision)}` : ''}`,
    ...(g
      ? [
          `    gain set, which decides (the ${g.n} questions the deployment does not realize): only ${c.a} ${g.onlyA}, only ${c.b} ${g.onlyB}, both ${g.both}, neither ${g.neither}; Δ reachable ${signedPct(g.difference.estimate)}  [${signedPct(g.difference.lo)}, ${signedPct(g.difference.hi)}] (paired score interval); exact McNemar p = ${pValueText(g.mcnemarP)}; verdict: ${storedVerdictText(g.decision)}`,
        ]
      : []),
    ...(m
      ? [
          `    gain set at matched block applications (each question's costlier probe cut to the other's spend: ${Math.round(m.spent.a)} / ${Math.round(m.spent.b)}): only ${c.a} ${m.onlyA}, only ${c.b} ${m.onlyB}; Δ reachable ${signedPct(m.difference.estimate)}  [${signedPct(m.difference.lo)}, ${signedPct(m.difference.hi)}] (paired score interval); exact McNemar p = ${pValueText(m.mcnemarP)}; ${storedVerdictText(m.decision)}`,
        ]
      : []),
    `    spent ${c.a} / ${c.b}: generations ${c.cost.a.generations}/${c.cost.b.generations} (${ratioText(c.cost.ratio.generations)}), tokens ${c.cost.a.tokens}/${c.cost.b.tokens} (${ratioText(c.cost.ratio.tokens)}), block applications ${c.cost.a.blockApplications}/${c.cost.b.blockApplications} (${ratioText(c.cost.ratio.blockApplications)})`,
  ];
}

/** What a ceiling-only run leaves out, in place of numbers from partial pools. */
export function untilReachedText(probes: readonly string[]): string {
  const names = probes.join(', ');
  return `pass@k and answer-blind picks of ${names}: not computed — --until-reached stopped each question's attempts at its first correct one (reachable is exact; the pools are partial)`;
}

const SHOWN_DISAGREEMENTS = 3;

/** An imported run's interface failures per harness reading, with the first few questions and both extractions. */
export function interfaceFailureLines(f: RunSummary['interfaceFailures']): string[] {
  if (!f) return [];
  const quoted = (x: string | null) => (x === null ? 'none' : JSON.stringify(x));
  const examples = (list: { id: string; harness: string | null; ours: string | null }[]) =>
    list.slice(0, SHOWN_DISAGREEMENTS).map((d) => `question ${d.id}: harness ${quoted(d.harness)}, ours ${quoted(d.ours)}`).join('; ') + (list.length > SHOWN_DISAGREEMENTS ? '; …' : '');
  const out: string[] = [];
  for (const [reading, x] of Object.entries(f)) {
    const m = x.missedRate;
    const r = x.reverseRate;
    out.push(`interface failures, harness ${reading} (n = ${x.n}): it missed ${m.successes} answer${m.successes === 1 ? '' : 's'} that ${m.successes === 1 ? 'is' : 'are'} in the output by our rules, of the ${m.n} it scored wrong ${rateText(m)}`);
    if (x.missed.length > 0) out.push(`    ${examples(x.missed)}`);
    out.push(`    of the ${r.n} it scored right, our rules find ${r.successes} wrong ${rateText(r)}`);
    if (x.reverse.length > 0) out.push(`    ${examples(x.reverse)}`);
  }
  return out;
}

export function formatSummary(s: RunSummary, title = 'Reach Audit summary'): string {
  const out: string[] = [`${title} — ${s.n} question${s.n === 1 ? '' : 's'} (rates with 95% Wilson intervals)`];
  if (s.skipped && s.skipped.n > 0) {
    const q = s.skipped.questions;
    if (q.length > 0) out.push(`  skipped, not in n: ${q.length} question${q.length === 1 ? '' : 's'} whose prompt + max new tokens exceed the model's context (${q.slice(0, 5).map((x) => `${x.id}: ${x.promptTokens} + ${x.maxNewTokens} > ${x.contextLimit}`).join('; ')}${q.length > 5 ? '; …' : ''})`);
    const ex = s.skipped.fewShotExamples ?? [];
    if (ex.length > 0) out.push(`  skipped, not in n: ${ex.length} question${ex.length === 1 ? '' : 's'} shown with ${ex.length === 1 ? 'its' : 'their'} answer as few-shot examples in the prompt (${ex.slice(0, 8).map((x) => x.id).join(', ')}${ex.length > 8 ? ', …' : ''})`);
  }
  if (s.promptTruncated > 0) out.push(`  ${s.promptTruncated} prompt${s.promptTruncated === 1 ? ' was' : 's were'} cut from the left to fit the context (--truncate-prompt left)`);
  out.push(`  ${pad('realized (deployment)', 34)} ${rateText(s.realized)}`);
  if (s.chance) out.push(`      ${chanceText(s.chance.realized)}`);
  for (const [p, r] of Object.entries(s.reachable)) {
    const b = s.budget[p];
    out.push(`  ${pad(`reachable by ${p}`, 34)} ${rateText(r)}   budget ${b ? `${b.generations} generations, ${b.tokens} tokens, ${b.blockApplications} block applications` : '—'}`);
    const rnr = s.reachableNotRealized?.[p];
    if (rnr) out.push(`      ${pad('of which not realized', 30)} ${rateText(rnr)}`);
    const chance = s.chance?.probes[p];
    if (chance) out.push(`      ${chanceText(chance)}`);
    const ran = exhaustionText(s.exhausted?.[p]);
    if (ran) out.push(`      ${ran}`);
  }
  if (s.probes.length > 1) {
    const b = s.reachableAnyBudget;
    const label = b ? `any probe (ceiling, ${b.attempts} attempts: ${Object.entries(b.byProbe).map(([p, x]) => `${p} ${x}`).join(' + ')})` : 'any probe (ceiling)';
    out.push(`  ${pad(`reachable by ${label}`, 34)} ${rateText(s.reachableAny)}`);
    if (s.realizedNotReached !== undefined) out.push(`  ${pad('', 34)} (the ceiling counts realized questions too: ${s.realizedNotReached} realized that no probe reached)`);
  }
  if (s.routesVsSearch) for (const line of probeComparisonLines(s.routesVsSearch)) out.push(`  ${line}`);
  for (const [p, sel] of Object.entries(s.blind)) {
    for (const [name, r] of Object.entries(sel)) {
      const note =
        name === 'global-route' && s.globalRoute
          ? `   (held-out split; realized there ${rateText(s.globalRoute.heldOut.realized)})`
          : name === 'learned-route' && s.learnedRoute
            ? `   (cross-fitted over ${s.learnedRoute.folds} folds, every question with the pool)`
            : '';
      out.push(`  ${pad(`answer-blind ${p} → ${name}`, 34)} ${rateText(r)}${note}`);
      const kept = s.blindRetention?.[p]?.[name];
      if (kept) out.push(`      ${retentionLine(p, kept)}`);
    }
    const left = s.blindDropped?.[p];
    if (left) out.push(`      ${blindDroppedText(p, left)}`);
  }
  for (const [p, curve] of Object.entries(s.passAtK)) {
    const ks = Object.keys(curve).map(Number);
    const shown = ks.filter((k) => k === 1 || k === ks[ks.length - 1] || (k & (k - 1)) === 0);
    const ci = s.passAtKCi?.[p];
    const at = (k: number) => `@${k} ${pct(curve[String(k)])}${ci?.[String(k)] ? ` [${pct(ci[String(k)].lo)}, ${pct(ci[String(k)].hi)}]` : ''}`;
    if (shown.length > 0) out.push(`  ${pad(`pass@k ${p} (${s.passAtKKind[p]})`, 34)} ${shown.map(at).join('  ')}   n = ${s.reachable[p]?.n ?? s.n}${ci ? `; intervals: ${s.passAtKKind[p] === 'first-k' ? 'Wilson' : 'Wilson where each question is 0 or 1, else percentile bootstrap'}` : ''}`);
    const cover = s.coverAtTau?.[p];
    if (cover) out.push(`  ${pad(`cover@τ ${p}`, 34)} ${cover.map((c) => `τ ${c.tau} ${pct(c.covered.rate)} [${pct(c.covered.ci.lo)}, ${pct(c.covered.ci.hi)}]${c.chance === undefined ? '' : ` (guesser ${pct(c.chance)})`}`).join('  ')}   n = ${cover[0].covered.n}, Wilson; guesser = uniform over the options, same attempts`);
  }
  if (s.untilReached && s.untilReached.length > 0) out.push(`  ${untilReachedText(s.untilReached)}`);
  if (s.readings) {
    for (const which of ['strict', 'flexible'] as const) {
      const r = s.readings[which];
      const reach = Object.entries(r.reachable).map(([p, rate]) => `${p} ${pct(rate.rate)} (${rate.successes}/${rate.n})`).join(', ');
      out.push(`  ${pad(`${which} reading: realized`, 34)} ${rateText(r.realized)}${reach ? `   reachable: ${reach}` : ''}`);
    }
    out.push('    (strict: the answer marker only; flexible: every fallback — for GSM8K lm-eval\'s strict-match and flexible-extract; no truncation rule)');
  }
  for (const line of interfaceFailureLines(s.interfaceFailures)) out.push(`  ${line}`);
  const t = s.truncated;
  const cut = [`deployment ${t.realized}/${s.n}`, ...Object.entries(t.probes ?? {}).map(([p, c]) => `${p} ${c.truncated}/${c.outputs}`)];
  if (t.globalRoutes) cut.push(`global route pool ${t.globalRoutes.truncated}/${t.globalRoutes.outputs}`);
  if (t.repair) cut.push(`repair scan ${t.repair.truncated}/${t.repair.outputs}`);
  out.push(`  hit the token limit: ${cut.join('; ')}`);
  const u = s.unfinishedThoughts;
  if (u) {
    const thinking = [`deployment ${u.realized}/${s.n}`, ...Object.entries(u.probes).map(([p, c]) => `${p} ${c.unfinished}/${c.outputs}`)];
    if (u.globalRoutes) thinking.push(`global route pool ${u.globalRoutes.unfinished}/${u.globalRoutes.outputs}`);
    if (u.repair) thinking.push(`repair scan ${u.repair.unfinished}/${u.repair.outputs}`);
    out.push(`  cut while thinking (the thought never closed; no answer read): ${thinking.join('; ')}`);
  }
  out.push(`  states: ${s.states.realized} realized, ${s.states.reachableNotRealized} reachable but not realized, ${s.states.unreached} unreached; ${s.truncated.realized} deployed outputs hit the token limit`);
  if (s.globalRoute) {
    const g = s.globalRoute;
    out.push(`  global route: ${g.route ? `[${g.route.join(',')}]` : '—'} chosen from a pool of ${g.poolSize} on ${g.selection.n} selection questions (${rateText(g.selection.accuracy)}), scored on ${g.heldOut.n} held-out`);
  }
  if (s.learnedRoute) for (const line of learnedRouteLines(s.learnedRoute)) out.push(`  ${line}`);
  if (s.repair) {
    const r = s.repair;
    out.push(`  repair scan: failure set |F| = ${r.failureSetSize}; identified block ${r.identifiedBlock ?? '—'} (chosen on ${r.selectionSize} selection questions)`);
    if (r.stale) out.push(`    ${repairStaleText(r.stale, r.failureSetSize)}`);
    out.push(`    repair rate on held-out F: ${r.n === 0 ? '— (n = 0)' : `${pct(r.repairRate)}  [${pct(r.ci?.lo)}, ${pct(r.ci?.hi)}]  ${r.repaired}/${r.n}`}`);
    out.push(`    damage to realized questions: ${r.damageN === 0 ? '— (n = 0)' : `${pct(r.damageRate)}  [${pct(r.damageCi?.lo)}, ${pct(r.damageCi?.hi)}]  n = ${r.damageN}`}`);
    if (r.null) for (const line of repairNullLines(r.identifiedBlock, r.null)) out.push(`    ${line}`);
    const blocks = r.byBlock.map((b) => `${b.block}: ${b.repair.successes}/${b.repair.n} repaired, ${b.damage.successes}/${b.damage.n} broken`);
    if (blocks.length > 0) out.push(`    by block — ${blocks.join('; ')}`);
  }
  const c = s.cost;
  if (s.depth) out.push(...depthLines(s.depth));
  if (s.foreclosure) out.push(...foreclosureLines(s.foreclosure));
  if (s.fork) out.push(...forkLines(s.fork));
  out.push(`  other cost: deployment ${c.deployment.generations} generations; global route pool ${c.globalRoutes.generations}; repair scan ${c.repair.generations}`);
  return out.join('\n');
}

/** A regraded run's repair scan: measured for the failure set before the regrade. */
export function repairStaleText(stale: NonNullable<RunSummary['repair']>['stale'] & object, scannedSize: number): string {
  return `STALE: the scan was measured for the failure set before regrading (${scannedSize} questions, old grading); the new verdicts give ${stale.failureSetSize} (${stale.joined} joined, ${stale.left} left). The rates below are of the old set; audit again with --repair to measure the new one.`;
}

function deltaText(d: PairedDelta): string {
  return `${pct(d.base)} → ${pct(d.tuned)}   Δ ${signedPct(d.delta)}  [${signedPct(d.ci.lo)}, ${signedPct(d.ci.hi)}]   McNemar p = ${d.mcnemarP < 0.001 ? d.mcnemarP.toExponential(2) : d.mcnemarP.toFixed(3)} (${d.gained} gained, ${d.lost} lost)${d.decision ? `   ${storedVerdictText(d.decision)}` : ''}`;
}

export function formatComparison(c: Comparison): string {
  const method = c.realized.ciMethod === 'newcombe-score' ? "Newcombe's paired score 95% intervals" : 'paired bootstrap 95% intervals, 10,000 resamples';
  const out: string[] = [`Checkpoint comparison — ${c.n} paired questions (${method}; verdicts: better / worse need exact McNemar p < 0.05, equivalent the interval inside ±margin)`];
  if (c.unmatched.baseOnly.length + c.unmatched.tunedOnly.length > 0) {
    out.push(`  left out: ${c.unmatched.baseOnly.length} questions only in the base run, ${c.unmatched.tunedOnly.length} only in the tuned run`);
  }
  out.push(`  ${pad('realized', 24)} ${deltaText(c.realized)}`);
  out.push(`  ${pad('reachable ceiling', 24)} ${deltaText(c.reachableCeiling)}`);
  if (c.realizedNotReached) out.push(`  ${pad('', 24)} (ceiling = realized or reached by any probe; realized with no probe reaching it: base ${c.realizedNotReached.base}, tuned ${c.realizedNotReached.tuned})`);
  for (const [p, d] of Object.entries(c.reachable)) out.push(`  ${pad(`reachable by ${p}`, 24)} ${deltaText(d)}`);
  out.push('  transitions (base → tuned):');
  const states = Object.keys(c.transitions) as (keyof Comparison['transitions'])[];
  out.push(`    ${pad('', 12)}${states.map((s) => pad(s, 12)).join('')}`);
  for (const from of states) out.push(`    ${pad(from, 12)}${states.map((to) => pad(String(c.transitions[from][to].length), 12)).join('')}`);
  const nr = c.newlyRealized;
  out.push(`  newly realized: ${nr.n}; already reachable by base ${rateText(nr.alreadyReachable)}; newly reachable ${rateText(nr.newlyReachable)} (Wilson 95%)`);
  if (c.foreclosure) out.push(`  ${foreclosureMovesText(c.foreclosure)}`);
  return out.join('\n');
}
