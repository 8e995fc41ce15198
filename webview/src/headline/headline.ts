/** Draws the run's headline metrics (headlineMetrics.ts) above the tabs. */
import type { Comparison, RunSummary } from '../../../src/contract';
import { h, replaceChildren } from '../common/element';
import { headlineMetrics } from './headlineMetrics';
import type { RunStatistics } from '../charts/runStatistics';

export function renderHeadline(target: HTMLElement, stats: RunStatistics, summary: RunSummary | undefined, compare: Comparison | undefined, live: boolean): void {
  const metrics = headlineMetrics(stats, summary, compare, live);
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
