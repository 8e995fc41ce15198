/**
 * The run's headline numbers above the tabs: realized, reachable per probe, the best answer-blind
 * selector, the identified repair block, and the realized and reachable-ceiling deltas when
 * comparing. Each number shows its interval and n. Finished runs use summary.json's numbers (the
 * audit's own); runs still going use the panel's live counts, marked as live. DOM-free.
 */
import { formatPercent as percent, identifiedBlockDamage, type Comparison, type Rate, type RunSummary, RATE_MIN_QUESTIONS } from '../../../src/contract';
import { deltaRows, deltaText, intervalMethodText, pValueClause, signedPoints, verdictRule } from '../comparison/comparisonModel';
import { count, intervalText } from '../common/numberText';
import type { RunStatistics } from '../charts/runStatistics';

export interface Metric {
  label: string;
  value: string;
  detail: string;
  kind: string;
  title?: string;
}

function fromRate(label: string, r: Rate, kind: string): Metric {
  return { label, value: percent(r.n === 0 ? undefined : r.rate), detail: `${intervalText(r.ci.lo, r.ci.hi)} n=${count(r.n)}`, kind };
}

export function headlineMetrics(stats: RunStatistics, summary: RunSummary | undefined, compare: Comparison | undefined, live: boolean): Metric[] {
  // summary.json's numbers when it covers these records; else the same definitions (the contract's
  // runRates) over the records held, which is what the Runs view shows for an unfinished run.
  const useSummary = !live && summary !== undefined && summary.n === stats.rates.n;
  const rates = useSummary ? summary : stats.rates;
  const metrics: Metric[] = [];
  metrics.push({ label: 'Questions', value: count(rates.n), detail: live ? 'live' : useSummary ? '' : 'finished so far', kind: 'n' });

  metrics.push(fromRate('Realized', rates.realized, 'realized'));

  for (const [probe, rate] of Object.entries(rates.reachable)) metrics.push(fromRate(`Reachable · ${probe}`, rate, 'reach'));

  const blind = Object.entries(stats.rates.blind).flatMap(([probe, selectors]) => Object.keys(selectors).map((selector) => ({ probe, selector })));
  if (blind.length > 0) {
    const rateOf = (b: { probe: string; selector: string }) => rates.blind[b.probe]?.[b.selector] ?? stats.rates.blind[b.probe][b.selector];
    const best = blind.reduce((a, b) => (rateOf(b).rate > rateOf(a).rate ? b : a));
    const metric = fromRate(`Blind · ${best.probe}/${best.selector}`, rateOf(best), 'blind');
    metric.title = 'The best answer-blind selector: picks among the probe outputs without the gold answer';
    metrics.push(metric);
  }

  // The audit writes null for a block or rate it could not measure (an empty selection or held-out half).
  const repair = summary?.repair;
  if (repair && repair.identifiedBlock !== null && repair.repairRate !== null && repair.n > 0) {
    const ci = repair.ci;
    const damageRate = identifiedBlockDamage(repair);
    const damage = damageRate ? ` · damage ${percent(damageRate.rate)} of ${count(damageRate.n)} realized` : '';
    // The random-block null (absent in older summaries): a repair rate means something only beside it.
    const nullModel = repair.null && typeof repair.null === 'object' && typeof repair.null.randomBlock?.rate === 'number' ? repair.null : undefined;
    const vsNull = nullModel ? ` · random block ${percent(nullModel.randomBlock.rate)}` : '';
    const nullTitle = nullModel
      ? `. A block drawn at random per question repairs ${percent(nullModel.randomBlock.rate)} of the same held-out questions${typeof nullModel.randomBlock.lo === 'number' && typeof nullModel.randomBlock.hi === 'number' ? ` [${percent(nullModel.randomBlock.lo)}–${percent(nullModel.randomBlock.hi)}]` : ''}; identified − random ${signedPoints(nullModel.difference.estimate)} (exact one-sided ${pValueClause(nullModel.pValue)})`
      : '';
    metrics.push({
      label: `Repair · block ${repair.identifiedBlock}`,
      // A held-out half of a few questions is a count, not a rate (the same threshold as the run's rates).
      value: repair.n < RATE_MIN_QUESTIONS ? `${count(repair.repaired)} of ${count(repair.n)}` : percent(repair.repairRate),
      detail: `${ci ? intervalText(ci.lo, ci.hi) : ''} n=${count(repair.n)}${vsNull}${damage}`,
      kind: 'repair',
      title: `Identified on a selection half of the failure set (${count(repair.selectionSize)} of ${count(repair.failureSetSize)} questions); rate on the held-out half (n=${count(repair.n)})${nullTitle}`,
    });
  } else {
    const failure = stats.states.find((s) => s.key === 'failureSet')!.value;
    metrics.push({ label: 'Failure set', value: count(failure.successes), detail: `${percent(failure.n === 0 ? undefined : failure.rate)} of n=${count(stats.n)}`, kind: 'repair' });
  }

  // The paper's two headline numbers; every probe's difference is in the Comparison section.
  for (const row of deltaRows(compare).filter((r) => r.key === 'realized' || r.key === 'ceiling')) {
    const d = row.delta;
    const text = deltaText(d, percent);
    metrics.push({
      label: row.key === 'realized' ? 'Δ realized' : 'Δ reachable ceiling',
      value: text.delta,
      detail: text.counted ? `${text.base} → ${text.tuned} n=${count(d.n)} · McNemar ${pValueClause(d.mcnemarP)} · ${text.verdict}` : `${text.interval} n=${count(d.n)} · McNemar ${pValueClause(d.mcnemarP)} · ${text.verdict}`,
      kind: 'delta',
      title: `tuned − base over the paired questions; 95% ${intervalMethodText(d.ciMethod)}; ${count(d.gained)} gained, ${count(d.lost)} lost. Verdict — ${verdictRule(d.decision)}`,
    });
  }
  return metrics;
}
