/**
 * The run's headline numbers above the tabs: realized, reachable per probe, the best answer-blind
 * selector, the identified repair block, and the realized and reachable-ceiling deltas when
 * comparing. Each number shows its interval and n. Finished runs use summary.json's numbers (the audit's own); runs still
 * going use the panel's live counts, marked as live.
 */
import { deltaRows, pointsInterval, pValueClause, signedPoints } from './comparisonModel';
import { count, h, intervalText, percent, replaceChildren } from './element';
import type { CompareSummary, Interval, RateWithInterval, RunSummary } from './protocol';
import type { RunStatistics } from './runStatistics';
import type { Proportion } from './wilson';

export function readInterval(ci: Interval | undefined): [number, number] | undefined {
  if (!ci) return undefined;
  if (Array.isArray(ci)) return ci.length === 2 ? [ci[0], ci[1]] : undefined;
  if ('low' in ci) return [ci.low, ci.high];
  if ('lo' in ci) return [ci.lo, ci.hi];
  return undefined;
}

interface Metric {
  label: string;
  value: string;
  detail: string;
  kind: string;
  title?: string;
}

function fromProportion(label: string, p: Proportion, kind: string): Metric {
  return { label, value: percent(p.rate), detail: `${intervalText(p.low, p.high)} n=${count(p.n)}`, kind };
}

function fromSummary(label: string, r: RateWithInterval, n: number, kind: string): Metric {
  const ci = readInterval(r.ci);
  return { label, value: percent(r.rate), detail: `${ci ? intervalText(ci[0], ci[1]) : ''} n=${count(r.n ?? n)}`, kind };
}

export function renderHeadline(target: HTMLElement, stats: RunStatistics, summary: RunSummary | undefined, compare: CompareSummary | undefined, live: boolean): void {
  const useSummary = !live && summary !== undefined && summary.n === stats.n;
  const metrics: Metric[] = [];
  metrics.push({ label: 'Questions', value: count(stats.n), detail: live ? 'live' : '', kind: 'n' });

  const realized = stats.states.find((s) => s.key === 'realized')!.value;
  metrics.push(useSummary && summary.realized ? fromSummary('Realized', summary.realized, summary.n, 'realized') : fromProportion('Realized', realized, 'realized'));

  for (const r of stats.reachableByProbe) {
    const s = useSummary ? summary.reachable?.[r.probe] : undefined;
    metrics.push(s ? fromSummary(`Reachable · ${r.probe}`, s, summary!.n, 'reach') : fromProportion(`Reachable · ${r.probe}`, r.value, 'reach'));
  }

  if (stats.blind.length > 0) {
    const best = stats.blind.reduce((a, b) => (b.value.rate > a.value.rate ? b : a));
    const s = useSummary ? summary.blind?.[best.probe]?.[best.selector] : undefined;
    const label = `Blind · ${best.probe}/${best.selector}`;
    const metric = s ? fromSummary(label, s, summary!.n, 'blind') : fromProportion(label, best.value, 'blind');
    metric.title = 'The best answer-blind selector: picks among the probe outputs without the gold answer';
    metrics.push(metric);
  }

  const repair = summary?.repair;
  // The audit writes null for a block or rate it had nothing to measure on: then there is no repair headline.
  const n = repair?.n ?? 0;
  if (repair && typeof repair.identifiedBlock === 'number' && typeof repair.repairRate === 'number' && n > 0) {
    const ci = readInterval(repair.ci ?? undefined);
    const damage = typeof repair.damageRate === 'number' ? ` · damage ${percent(repair.damageRate)}` : '';
    metrics.push({
      label: `Repair · block ${repair.identifiedBlock}`,
      value: percent(repair.repairRate),
      detail: `${ci ? intervalText(ci[0], ci[1]) : ''} n=${count(n)}${damage}`,
      kind: 'repair',
      title: `Identified on a selection half of the failure set (${count(repair.failureSetSize)} questions); rate on the held-out half`,
    });
  } else {
    const failure = stats.states.find((s) => s.key === 'failureSet')!.value;
    metrics.push({ label: 'Failure set', value: count(failure.successes), detail: `${percent(failure.rate)} of n=${count(stats.n)}`, kind: 'repair' });
  }

  // The paper's two headline numbers; every probe's difference is in the Comparison section.
  for (const row of deltaRows(compare).filter((r) => r.key === 'realized' || r.key === 'ceiling')) {
    const d = row.delta;
    metrics.push({
      label: row.key === 'realized' ? 'Δ realized' : 'Δ reachable ceiling',
      value: signedPoints(d.delta),
      detail: `${pointsInterval(d.ci)} n=${count(d.n)} · McNemar ${pValueClause(d.mcnemarP)}`,
      kind: 'delta',
      title: `tuned − base over the paired questions; 95% paired bootstrap interval; ${count(d.gained)} gained, ${count(d.lost)} lost`,
    });
  }

  replaceChildren(
    target,
    ...metrics.map((m) =>
      h('div', { class: `metric metric-${m.kind}`, title: m.title },
        h('div', { class: 'metric-label' }, m.label),
        h('div', { class: 'metric-value' }, m.value),
        h('div', { class: 'metric-detail muted' }, m.detail)),
    ),
  );
}
