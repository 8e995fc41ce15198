/**
 * Foreclosure windows over a run (docs/design/probes.md, "Foreclosure window"): of the depth-probed
 * questions, those the depth probe left a bracket for, the share narrowed to a decided window
 * (Wilson), and the median width of those windows and of their depth brackets, each with its
 * distribution-free 95% interval.
 */
import { rateOf, type Budget, type ForeclosureResult, type ForeclosureSummary, type QuestionRecord } from '../../contract';
import { medianInterval } from '../stats';

export function foreclosureSummary(records: readonly QuestionRecord[]): ForeclosureSummary | undefined {
  const results = records.flatMap((r): ForeclosureResult[] => (r.foreclosure ? [r.foreclosure] : []));
  if (results.length === 0) return undefined;
  const settings = results[0].test;
  const bracketed = results.filter((f) => f.bracket !== null);
  const windows = results.flatMap((f) => (f.window && f.bracket ? [{ window: f.window, bracket: f.bracket }] : []));
  const prefixes = { reaches: 0, not: 0, undecided: 0 };
  const cost: Budget = { generations: 0, tokens: 0, blockApplications: 0 };
  for (const f of results) {
    for (const p of f.prefixes) prefixes[p.decision === 'reaches' ? 'reaches' : p.decision === 'not' ? 'not' : 'undecided']++;
    cost.generations += f.cost.generations;
    cost.tokens += f.cost.tokens;
    cost.blockApplications += f.cost.blockApplications;
  }
  const widths = windows.map((w) => w.window.to - w.window.from);
  return {
    n: results.length,
    samples: settings.samples,
    threshold: settings.threshold,
    error: settings.error,
    bracketed: bracketed.length,
    decided: rateOf(windows.length, bracketed.length),
    oneToken: widths.filter((w) => w === 1).length,
    width: widths.length > 0 ? medianInterval(widths) : null,
    bracketWidth: windows.length > 0 ? medianInterval(windows.map((w) => w.bracket.to - w.bracket.from)) : null,
    prefixes,
    cost,
  };
}
