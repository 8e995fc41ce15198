/**
 * The depth-of-loss table: one row per run with --depth-probe, from the run's records (the same
 * depthSummary its summary.json carries): the reach curve over depth with intervals, the share
 * of failures lost in each quarter of the deployed output, early against late, and the cost.
 */
import { depthTrendText } from './depthText';
import { DEPTH_MARKS, type DepthSummary, type ForeclosureSummary, type MedianWithInterval, type Rate } from '../../contract';
import { depthSummary, foreclosureSummary, type RunForTables } from '../results';
import type { TableView } from './tablesReport';

const rateText = (r: Rate | undefined) => (!r || r.n === 0 ? '—' : `${(100 * r.rate).toFixed(1)}% [${(100 * r.ci.lo).toFixed(1)}, ${(100 * r.ci.hi).toFixed(1)}] (n = ${r.n})`);
const rateCsv = (r: Rate | undefined) => (!r ? [null, null, null, 0] : [r.rate, r.ci.lo, r.ci.hi, r.n]);
const MARKS = ['from start', 'from ¼', 'from ½', 'from ¾', 'from last line break'];
const QUARTERS = ['1', '2', '3', '4'];

export interface DepthRow {
  folder: string;
  model: string;
  dataset: string;
  finished: boolean;
  depth: DepthSummary;
  /** --foreclosure-window: the depth brackets narrowed to windows of tokens; absent without it. */
  foreclosure?: ForeclosureSummary;
}

export function depthRows(runs: readonly RunForTables[]): { rows: DepthRow[]; missing: { folder: string; reason: string }[] } {
  const rows: DepthRow[] = [];
  const missing: { folder: string; reason: string }[] = [];
  for (const run of runs) {
    const depth = depthSummary(run.records.filter((r) => !r.skipped));
    const foreclosure = foreclosureSummary(run.records.filter((r) => !r.skipped));
    if (depth) rows.push({ folder: run.folder, model: run.model, dataset: run.dataset, finished: run.finished, depth, ...(foreclosure ? { foreclosure } : {}) });
    else missing.push({ folder: run.folder, reason: 'no depth probe results (audit with --depth-probe B; only failure-set questions get one)' });
  }
  return { rows, missing };
}

/** Under 20 windows a median is not given (counts only), as in the run's text. */
const medianText = (m: MedianWithInterval | null | undefined) => (!m ? '—' : m.n < 20 ? `${m.n} windows (counts only)` : `${m.median}${m.ci ? ` [${m.ci.lo}, ${m.ci.hi}]` : ''} (n = ${m.n})`);
/** Under 20 bracketed questions the share decided is given as a count. */
const decidedText = (f: ForeclosureSummary | undefined) => (!f ? '—' : f.decided.n < 20 ? `${f.decided.successes} of ${f.decided.n} (counts only)` : rateText(f.decided));
const medianCsv = (m: MedianWithInterval | null | undefined) => (!m ? [null, null, null, 0] : [m.median, m.ci?.lo ?? null, m.ci?.hi ?? null, m.n]);

const markOf = (d: DepthSummary, at: string) => d.curve.find((c) => c.at === at)?.reached;

export function depthView(rows: readonly DepthRow[], missing: readonly { folder: string; reason: string }[]): TableView {
  return {
    id: 'depth',
    title: 'Depth of loss: where the deployed output loses a reachable answer',
    notes: [
      "For each failure-set question (reachable, not realized), B seeded samples with the sample probe's decoding continue the deployed output from 0, ¼, ½, ¾ of its tokens and from after its last line break. Reached: a continuation from that prefix is correct (Wilson 95% interval). Lost in quarter q: the first prefix after the deepest one that still reaches the answer lies in that quarter (4 also when the deepest prefix still reaches it); not reached from any prefix: not even from the empty one. Early against late are counts: with the same success rate at every prefix they move with that rate alone; whether reach falls with depth is the exact within-question permutation test against a constant rate (calibration row \"depth of loss: trend\").",
      'Foreclosure window (--foreclosure-window N): each depth bracket narrowed by bisection over token positions, every prefix decided above or below the threshold θ by a sequential test with each wrong decision at most α likely; decided: both bounds of the window decided (over the questions with a bracket); width: the decided windows in tokens, median with a distribution-free 95% interval (none under 20 windows).',
    ],
    headers: ['model', 'dataset', 'failures', 'B', ...MARKS.map((m) => `reached ${m}`), ...QUARTERS.map((q) => `lost in quarter ${q}`), 'not reached from any prefix', 'early (quarter 1) / late (counts)', 'reach falls with depth? (exact test vs a constant rate)', 'cost (generations / tokens / block applications)', 'foreclosure window decided', 'window width, tokens', 'its depth bracket, tokens', 'foreclosure cost (generations / tokens / block applications)'],
    rows: rows.map((r) => [
      r.finished ? r.model : `${r.model} (unfinished)`,
      r.dataset,
      String(r.depth.n),
      String(r.depth.budget),
      ...DEPTH_MARKS.map((m) => rateText(markOf(r.depth, m))),
      ...r.depth.lostIn.quarter.map(rateText),
      rateText(r.depth.lostIn.start),
      `${r.depth.early.successes} / ${r.depth.late.successes}`,
      r.depth.trend ? depthTrendText(r.depth.trend) : '—',
      `${r.depth.cost.generations} / ${r.depth.cost.tokens} / ${r.depth.cost.blockApplications}`,
      decidedText(r.foreclosure),
      medianText(r.foreclosure?.width),
      medianText(r.foreclosure?.bracketWidth),
      r.foreclosure ? `${r.foreclosure.cost.generations} / ${r.foreclosure.cost.tokens} / ${r.foreclosure.cost.blockApplications}` : '—',
    ]),
    csvHeaders: [
      'folder', 'model', 'dataset', 'finished', 'failures', 'budget',
      ...DEPTH_MARKS.flatMap((m) => [`reached_${m}`, `reached_${m}_lo`, `reached_${m}_hi`, `reached_${m}_n`]),
      ...QUARTERS.flatMap((q) => [`lost_q${q}`, `lost_q${q}_lo`, `lost_q${q}_hi`, `lost_q${q}_n`]),
      'lost_start', 'lost_start_lo', 'lost_start_hi', 'lost_start_n', 'early', 'late', 'trend_informative', 'trend_p', 'trend_min_p', 'generations', 'tokens', 'block_applications',
      'foreclosure_bracketed', 'foreclosure_decided', 'window_median', 'window_lo', 'window_hi', 'window_n', 'bracket_median', 'bracket_lo', 'bracket_hi', 'bracket_n', 'foreclosure_generations', 'foreclosure_tokens', 'foreclosure_block_applications',
    ],
    csvRows: rows.map((r) => [
      r.folder, r.model, r.dataset, r.finished, r.depth.n, r.depth.budget,
      ...DEPTH_MARKS.flatMap((m) => rateCsv(markOf(r.depth, m))),
      ...r.depth.lostIn.quarter.flatMap(rateCsv),
      ...rateCsv(r.depth.lostIn.start),
      r.depth.early.successes, r.depth.late.successes, r.depth.trend?.informative ?? null, r.depth.trend?.p ?? null, r.depth.trend?.minP ?? null, r.depth.cost.generations, r.depth.cost.tokens, r.depth.cost.blockApplications,
      r.foreclosure?.bracketed ?? null, r.foreclosure?.decided.successes ?? null, ...medianCsv(r.foreclosure?.width), ...medianCsv(r.foreclosure?.bracketWidth),
      r.foreclosure?.cost.generations ?? null, r.foreclosure?.cost.tokens ?? null, r.foreclosure?.cost.blockApplications ?? null,
    ]),
    apart: missing.map((m) => `Not in the table: ${m.folder} — ${m.reason}`),
  };
}
