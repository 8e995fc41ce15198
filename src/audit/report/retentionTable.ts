/**
 * Answer-blind retention across runs (base → tuned): per selector of the routes probe, what it
 * recovers on each run's gain set and the share of the probe's gain it keeps, beside the oracle
 * (the probe's own reach). The learned router's row answers whether training made the gain more
 * realizable by a router. Each cell has its count, n and interval (counts only below RATE_MIN_QUESTIONS).
 */
import { RATE_MIN_QUESTIONS, formatPercent as pct, type BlindRetention, type Rate, type RunSummary } from '../../contract';

function rateCell(r: Rate | undefined): string {
  if (!r || r.n === 0) return '—';
  if (r.n < RATE_MIN_QUESTIONS) return `${r.successes}/${r.n}`;
  return `${r.successes}/${r.n} ${pct(r.rate)} [${pct(r.ci.lo)}, ${pct(r.ci.hi)}]`;
}

function keptCell(k: BlindRetention | undefined): string {
  if (!k || k.retained === null) return '—';
  // A share only between the deployment and the probe's reach; outside it, words (as retentionText.ts says them).
  if (k.retained < 0) return 'none (below the deployment)';
  if (k.retained > 1) return 'beyond the probe\'s reach';
  return `${pct(k.retained)}${k.ci ? ` [${pct(k.ci.lo)}, ${pct(k.ci.hi)}]` : ''}`;
}

/** Text lines of the table; empty when neither run has a retention for the routes probe. */
export function retentionTableLines(runs: readonly { label: string; summary: RunSummary }[], probe = 'routes'): string[] {
  const selectors: string[] = [];
  for (const { summary } of runs) for (const s of Object.keys(summary.blindRetention?.[probe] ?? {})) if (!selectors.includes(s)) selectors.push(s);
  if (selectors.length === 0) return [];
  const out = [`Answer-blind retention of the ${probe} probe's gain, ${runs.map((r) => r.label).join(' → ')} (recovered on the gain set, Wilson 95%; share of the gain kept, paired bootstrap 95%):`];
  for (const s of selectors) {
    const cells = runs.map(({ label, summary }) => {
      const k = summary.blindRetention?.[probe]?.[s];
      return `${label}: recovered ${rateCell(k?.recovered?.blind)}, lost ${rateCell(k?.lost)}, keeps ${keptCell(k)}`;
    });
    const note = s === 'global-route' ? ' (held-out half)' : s === 'learned-route' ? ' (cross-fitted)' : '';
    out.push(`  ${s}${note}: ${cells.join('; ')}`);
  }
  const oracle = runs.map(({ label, summary }) => {
    const any = Object.values(summary.blindRetention?.[probe] ?? {}).find((k) => k.recovered);
    return `${label}: reaches ${rateCell(any?.recovered?.reachable)}`;
  });
  out.push(`  oracle (${probe} reaches, the answer known): ${oracle.join('; ')}`);
  const learned = runs.map(({ label, summary }) => (summary.learnedRoute ? `${label} ${summary.learnedRoute.versusGlobal.gainSet.decision?.verdict ?? '—'} (${summary.learnedRoute.versusGlobal.gainSet.gained} vs ${summary.learnedRoute.versusGlobal.gainSet.lost} of ${summary.learnedRoute.versusGlobal.gainSet.n})` : undefined)).filter((x): x is string => x !== undefined);
  if (learned.length > 0) out.push(`  learned vs global route of the same folds, gain set: ${learned.join('; ')}`);
  return out;
}
