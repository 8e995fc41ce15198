/**
 * A self-contained HTML report of a run or a checkpoint comparison: headline rates with n and 95%
 * intervals, state bars, pass@k curves (random routes vs search at matched budget, both
 * checkpoints), repair and damage by block, the question × block repair heatmap, the transition
 * table, and the question table. Charts are inline SVG generated here; the page loads nothing
 * remote, runs no script, submits no form and follows no link (its CSP forbids them), and escapes
 * every value taken from a run: strings and numbers alike, through the `html` tag (safeHtml.ts).
 */
import { formatPercent as pct, learnedRouteLines, MIN_BOOTSTRAP_QUESTIONS, questionState, repairedBy, storedVerdictText, type QuestionRecord, type Rate, type RunSummary, type StoredComparison, type PassAtKDeltaCurve } from '../../contract';
import { fixed, Html, html, joinHtml } from './safeHtml';
import { forkLines, forkTransitionText } from './forkText';
import { forkTransition } from '../results';
import { chanceText, exhaustionText, probeComparisonLines, repairNullLines, repairStaleText, untilReachedText } from './summaryText';
import { retentionReading, retentionSplit } from './retentionText';
import { blindDroppedText } from './blindDroppedText';
import { foreclosureLines } from './foreclosureText';
import { crossingText, deltaAtKText } from './passAtKDeltaText';

const rateCell = (r: Rate | undefined): Html => (!r || r.n === 0 ? html`— <span class="n">n = 0</span>` : html`${pct(r.rate)} <span class="ci">[${pct(r.ci?.lo)}, ${pct(r.ci?.hi)}]</span> <span class="n">${r.successes}/${r.n}</span>`);
/** A coordinate: run-file values reach the charts, so anything not a finite number draws as 0. */
const coord = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '0');
const finite = (x: number) => (Number.isFinite(x) ? x : 0);

const PALETTE = ['#3b6fd4', '#d9822b', '#2e9e6a', '#b8408f', '#7a5cc7', '#8c8c8c'];

export interface Series {
  label: string;
  points: [number, number][];
  dashed?: boolean;
  /** A shaded interval around the line: [x, lo, hi]. */
  band?: [number, number, number][];
}

/** A line chart of rates (y in 0..1) over k. */
export function lineChart(title: string, series: Series[], xLabel: string): Html {
  const W = 460;
  const H = 240;
  const m = { l: 44, r: 12, t: 24, b: 36 };
  const xs = series.flatMap((s) => s.points.map((p) => p[0])).filter(Number.isFinite);
  if (xs.length === 0) return html``;
  const xMax = Math.max(...xs);
  const xMin = Math.min(...xs);
  const X = (x: number) => m.l + ((x - xMin) / Math.max(1, xMax - xMin)) * (W - m.l - m.r);
  const Y = (y: number) => H - m.b - y * (H - m.t - m.b);
  const grid = [0, 0.25, 0.5, 0.75, 1].map((y) => html`<line x1="${m.l}" x2="${W - m.r}" y1="${Y(y)}" y2="${Y(y)}" class="grid"/><text x="${m.l - 6}" y="${Y(y) + 4}" text-anchor="end">${y * 100}%</text>`);
  const ticks = [...new Set([xMin, Math.round((xMin + xMax) / 2), xMax])].map((x) => html`<text x="${finite(X(x))}" y="${H - m.b + 16}" text-anchor="middle">${x}</text>`);
  const lines = series.map((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    const d = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y)).map(([x, y], j) => `${j === 0 ? 'M' : 'L'}${coord(X(x))},${coord(Y(y))}`).join(' ');
    const band = (s.band ?? []).filter(([x, lo, hi]) => Number.isFinite(x) && Number.isFinite(lo) && Number.isFinite(hi));
    const area = band.length < 2 ? '' : [...band.map(([x, , hi]) => `${coord(X(x))},${coord(Y(hi))}`), ...band.slice().reverse().map(([x, lo]) => `${coord(X(x))},${coord(Y(lo))}`)].join(' ');
    return [
      area === '' ? '' : html`<polygon points="${area}" fill="${color}" opacity="0.15"/>`,
      html`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"${s.dashed ? html` stroke-dasharray="5 4"` : ''}/>`,
      html`<rect x="${W - m.r - 150}" y="${m.t + i * 16 - 9}" width="10" height="10" fill="${color}"/><text x="${W - m.r - 135}" y="${m.t + i * 16}">${s.label}</text>`,
    ];
  });
  const bandNote = series.some((s) => (s.band ?? []).length > 1) ? html` <span class="n">(shaded: 95% interval: Wilson where each question is 0 or 1, else bootstrap)</span>` : '';
  return html`<figure><figcaption>${title}${bandNote}</figcaption><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${title}">${grid}${ticks}${lines}<text x="${(m.l + W - m.r) / 2}" y="${H - 4}" text-anchor="middle">${xLabel}</text></svg></figure>`;
}

/** Horizontal bars of rates with their 95% interval whiskers. */
function rateBars(title: string, rows: { label: string; rate: Rate; group?: number }[]): Html {
  const shown = rows.filter((r) => r.rate?.n > 0);
  if (shown.length === 0) return html``;
  const W = 460;
  const rowH = 22;
  const left = 190;
  const H = shown.length * rowH + 30;
  const X = (x: number) => left + x * (W - left - 20);
  const bars = shown.map((r, i) => {
    const y = 10 + i * rowH;
    const color = PALETTE[(r.group ?? i) % PALETTE.length];
    return [
      html`<text x="${left - 6}" y="${y + 13}" text-anchor="end">${r.label}</text>`,
      html`<rect x="${left}" y="${y + 3}" width="${coord(X(r.rate.rate) - left)}" height="${rowH - 8}" fill="${color}" opacity="0.8"/>`,
      html`<line x1="${coord(X(r.rate.ci?.lo))}" x2="${coord(X(r.rate.ci?.hi))}" y1="${y + rowH / 2 - 1}" y2="${y + rowH / 2 - 1}" class="whisker"/>`,
      html`<title>${`${r.label}: ${pct(r.rate.rate)} [${pct(r.rate.ci?.lo)}, ${pct(r.rate.ci?.hi)}], ${r.rate.successes}/${r.rate.n}`}</title>`,
    ];
  });
  const axis = [0, 0.5, 1].map((x) => html`<text x="${X(x)}" y="${H - 4}" text-anchor="middle">${x * 100}%</text>`);
  return html`<figure><figcaption>${title} <span class="n">(bars: rate; whiskers: 95% Wilson interval)</span></figcaption><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${title}">${bars}${axis}</svg></figure>`;
}

function stateBar(title: string, s: RunSummary): Html {
  const parts = [
    ['realized', s.states?.realized, '#2e9e6a'],
    ['reachable, not realized', s.states?.reachableNotRealized, '#d9822b'],
    ['unreached', s.states?.unreached, '#8c8c8c'],
  ] as const;
  const W = 460;
  let x = 0;
  const rects = parts.map(([label, count, color]) => {
    const w = s.n === 0 ? 0 : (count / s.n) * W;
    const r = html`<rect x="${coord(x)}" y="0" width="${coord(w)}" height="26" fill="${color}"><title>${`${label}: ${count}/${s.n}`}</title></rect>`;
    x += Number.isFinite(w) ? w : 0;
    return r;
  });
  const legend = joinHtml(parts.map(([label, count, color]) => html`<span class="chip" style="background:${color}"></span>${label} ${count}`), html` &nbsp; `);
  return html`<figure><figcaption>${title} (n = ${s.n})</figcaption><svg viewBox="0 0 ${W} 26" role="img" aria-label="${title}">${rects}</svg><div class="legend">${legend}</div></figure>`;
}

function heatmap(s: RunSummary): Html {
  const r = s.repair;
  if (!r || !Array.isArray(r.matrix) || r.matrix.length === 0) return html``;
  const rows = r.matrix.slice(0, 400);
  const blocks = r.byBlock.map((b) => b.block);
  const cell = 12;
  const left = 120;
  const W = left + blocks.length * cell + 10;
  const H = 20 + rows.length * cell;
  const header = blocks.map((b, j) => html`<text x="${left + j * cell + cell / 2}" y="14" text-anchor="middle" class="small">${b}</text>`);
  const body = rows.map((row, i) => {
    const y = 20 + i * cell;
    const id = String(row.id);
    const cells = (Array.isArray(row.correct) ? row.correct : []).map((c, j) => {
      const color = row.inFailureSet ? (c ? '#2e9e6a' : '#eeeeee') : c ? '#eeeeee' : '#c0392b';
      return html`<rect x="${left + j * cell}" y="${y}" width="${cell - 1}" height="${cell - 1}" fill="${color}"><title>${`${id}, block ${blocks[j]} silenced: ${c ? 'correct' : 'wrong'}`}</title></rect>`;
    });
    return html`<text x="${left - 4}" y="${y + 10}" text-anchor="end" class="small">${id.length > 18 ? id.slice(0, 17) + '…' : id}${row.inFailureSet ? ' (F)' : ''}</text>${cells}`;
  });
  const more = r.matrix.length > rows.length ? html`<p class="n">showing ${rows.length} of ${r.matrix.length} rows</p>` : '';
  return html`<figure><figcaption>Question × block: failure-set rows green where silencing the block repairs them; realized rows red where it breaks them</figcaption><svg viewBox="0 0 ${W} ${H}" width="${W}" role="img" aria-label="repair heatmap">${header}${body}</svg>${more}</figure>`;
}

/** A text line built from run-file values, or nothing when they are not the shape it needs (a hostile or older file). */
function safeLine(make: () => string | undefined): string {
  try {
    return make() ?? '';
  } catch {
    return '';
  }
}

/** safeLine for a block of lines. */
function safeLines(make: () => string[]): string[] {
  try {
    return make();
  } catch {
    return [];
  }
}

function summaryTable(s: RunSummary): Html {
  const note = (text: string) => (text === '' ? html`` : html`<tr><td></td><td colspan="2" class="n">${text}</td></tr>`);
  const rows: Html[] = [html`<tr><th>realized (deployment)</th><td>${rateCell(s.realized)}</td><td></td></tr>`];
  if (s.skipped && typeof s.skipped.n === 'number' && s.skipped.n > 0) {
    const examples = Array.isArray(s.skipped.fewShotExamples) ? s.skipped.fewShotExamples.length : 0;
    if (examples > 0) rows.unshift(html`<tr><th>skipped (not in n)</th><td>${examples}</td><td class="n">few-shot examples of the prompt, shown with their answers</td></tr>`);
    if (s.skipped.n - examples > 0) rows.unshift(html`<tr><th>skipped (not in n)</th><td>${s.skipped.n - examples}</td><td class="n">prompt + max new tokens exceed the model's context</td></tr>`);
  }
  if (typeof s.promptTruncated === 'number' && s.promptTruncated > 0) rows.unshift(html`<tr><th>prompts cut from the left</th><td>${s.promptTruncated}</td><td class="n">--truncate-prompt left</td></tr>`);
  rows.push(note(safeLine(() => (s.chance ? chanceText(s.chance.realized) : undefined))));
  const u = s.unfinishedThoughts;
  if (u && typeof u.realized === 'number') {
    const probes = Object.entries(u.probes ?? {}).map(([p, c]) => `${p} ${c?.unfinished}/${c?.outputs}`).join(' · ');
    rows.push(html`<tr><th class="sub">cut while thinking</th><td>${u.realized}/${s.n}</td><td class="n">deployed outputs whose thought never closed: no answer read${probes ? ` · probe attempts: ${probes}` : ''}</td></tr>`);
  }
  for (const [p, r] of Object.entries(s.reachable ?? {})) {
    const b = s.budget?.[p];
    rows.push(html`<tr><th>reachable by ${p}</th><td>${rateCell(r)}</td><td class="n">${b ? `${b.generations} generations · ${b.tokens} tokens · ${b.blockApplications} block applications` : ''}</td></tr>`);
    const rnr = s.reachableNotRealized?.[p];
    if (rnr) rows.push(html`<tr><th class="sub">of which not realized</th><td>${rateCell(rnr)}</td><td></td></tr>`);
    rows.push(note(safeLine(() => (s.chance?.probes?.[p] ? chanceText(s.chance.probes[p]) : undefined))));
    rows.push(note(safeLine(() => exhaustionText(s.exhausted?.[p]))));
  }
  const b = s.reachableAnyBudget;
  const ceiling = b && typeof b === 'object' && b.byProbe ? `any probe, ${b.attempts} attempts: ${Object.entries(b.byProbe).map(([p, x]) => `${p} ${x}`).join(' + ')}` : 'any probe';
  rows.push(html`<tr><th>reachable ceiling (${ceiling})</th><td>${rateCell(s.reachableAny)}</td><td></td></tr>`);
  for (const [p, sel] of Object.entries(s.blind ?? {})) {
    for (const [name, r] of Object.entries(sel)) {
      rows.push(html`<tr><th>answer-blind ${p} → ${name}</th><td>${rateCell(r)}</td><td class="n">${name === 'global-route' ? 'held-out split only' : name === 'learned-route' && s.learnedRoute ? `cross-fitted, ${s.learnedRoute.folds} folds` : ''}</td></tr>`);
      const kept = s.blindRetention?.[p]?.[name];
      if (kept) {
        const reading = retentionReading(p, kept);
        rows.push(html`<tr><th class="sub">share of the ${p} probe's gain kept</th><td>${reading.verdict}</td><td class="n">${reading.basis}${reading.kind === 'keeps' ? ' · paired bootstrap' : ''}</td></tr>`);
        const split = retentionSplit(p, kept);
        if (split) rows.push(html`<tr><th class="sub">recovered on the gain set / lost on realized</th><td colspan="2" class="n">${split} · Wilson intervals</td></tr>`);
      }
    }
    const left = s.blindDropped?.[p];
    if (left) rows.push(html`<tr><th class="sub">blind pool</th><td colspan="2" class="n">${blindDroppedText(p, left)}</td></tr>`);
  }
  if (s.learnedRoute) for (const line of safeLines(() => learnedRouteLines(s.learnedRoute!))) rows.push(html`<tr><td colspan="3" class="n">${line}</td></tr>`);
  if (Array.isArray(s.untilReached) && s.untilReached.length > 0) rows.push(html`<tr><td colspan="3" class="n">${untilReachedText(s.untilReached)}</td></tr>`);
  if (s.repair) {
    const r = s.repair;
    rows.push(html`<tr><th>repair by block ${r.identifiedBlock ?? '—'} (held-out F)</th><td>${r.n === 0 ? html`— <span class="n">n = 0</span>` : html`${pct(r.repairRate)} <span class="ci">[${pct(r.ci?.lo)}, ${pct(r.ci?.hi)}]</span> <span class="n">${r.repaired}/${r.n}</span>`}</td><td class="n">|F| = ${r.failureSetSize}, chosen on ${r.selectionSize}</td></tr>`);
    rows.push(html`<tr><th>damage by block ${r.identifiedBlock ?? '—'}</th><td>${r.damageN === 0 ? html`— <span class="n">n = 0</span>` : html`${pct(r.damageRate)} <span class="ci">[${pct(r.damageCi?.lo)}, ${pct(r.damageCi?.hi)}]</span> <span class="n">n = ${r.damageN}</span>`}</td><td class="n">realized questions broken</td></tr>`);
    const nullLines = r.null ? safeLine(() => repairNullLines(r.identifiedBlock, r.null!).join('\n')) : '';
    for (const line of nullLines === '' ? [] : nullLines.split('\n')) rows.push(html`<tr><td colspan="3" class="n">${line}</td></tr>`);
    if (r.stale) rows.push(html`<tr><th class="sub">repair scan</th><td colspan="2" class="n">${repairStaleText(r.stale, r.failureSetSize)}</td></tr>`);
  }
  // The foreclosure window in the words of the text summary (run files are read back, so a malformed one shows nothing, not a stack).
  const windowLines = s.foreclosure ? safeLine(() => foreclosureLines(s.foreclosure!).map((l) => l.trim()).join('\n')) : '';
  for (const line of windowLines === '' ? [] : windowLines.split('\n')) rows.push(html`<tr><td colspan="3" class="n">${line}</td></tr>`);
  if (s.fork) {
    const f = s.fork;
    rows.push(html`<tr><th>saved by a fork (unrealized questions)</th><td>${rateCell(f.saved)}</td><td class="n">--fork-probe ${f.budget}: ${f.positions} highest-entropy and ${f.positions} random positions per question</td></tr>`);
    for (const line of safeLines(() => forkLines(f).slice(1))) rows.push(html`<tr><td colspan="3" class="n">${line.trim()}</td></tr>`);
  }
  return html`<table class="summary"><tbody>${rows}</tbody></table>${probeComparisonTable(s)}`;
}

/** Random routes vs search: budgets (or UNMATCHED), spend and ratios, the paired counts and tests. */
function probeComparisonTable(s: RunSummary): Html {
  const c = s.routesVsSearch;
  if (!c || typeof c !== 'object') return html``;
  const lines = safeLine(() => probeComparisonLines(c).join('\n'));
  if (lines === '') return html``;
  const [head, ...rest] = lines.split('\n');
  return html`<h2>Random routes vs search${c.match === 'matched' ? ' at a matched budget' : html` — <strong>unmatched budgets</strong>`}</h2><p>${head}</p>${rest.map((l) => html`<p class="n">${l.trim()}</p>`)}`;
}

function runCharts(label: string, s: RunSummary): Html {
  const bars: { label: string; rate: Rate; group?: number }[] = [{ label: 'realized', rate: s.realized, group: 2 }];
  for (const [p, r] of Object.entries(s.reachable ?? {})) bars.push({ label: `reachable · ${p}`, rate: r, group: 0 });
  for (const [p, sel] of Object.entries(s.blind ?? {})) for (const [name, r] of Object.entries(sel)) bars.push({ label: `blind · ${p} → ${name}`, rate: r, group: 1 });
  const curves = Object.entries(s.passAtK ?? {}).map(([p, c]) => ({
    label: `${p} (${s.passAtKKind?.[p]})`,
    points: Object.entries(c).map(([k, v]) => [Number(k), v] as [number, number]),
    band: Object.entries(s.passAtKCi?.[p] ?? {}).map(([k, ci]) => [Number(k), Number(ci?.lo), Number(ci?.hi)] as [number, number, number]),
  }));
  let repair = html``;
  if (s.repair && Array.isArray(s.repair.byBlock) && s.repair.byBlock.length > 0) {
    const rows: { label: string; rate: Rate; group?: number }[] = [];
    for (const b of s.repair.byBlock) {
      rows.push({ label: `block ${b.block} repairs F`, rate: b.repair, group: 2 });
      rows.push({ label: `block ${b.block} breaks realized`, rate: b.damage, group: 5 });
    }
    repair = html`${rateBars(`${label}: repair rate and damage by silenced MLP block`, rows)}${heatmap(s)}`;
  }
  return html`<div class="charts">${stateBar(`${label}: question states`, s)}${rateBars(`${label}: realized, reachable and answer-blind`, bars)}${lineChart(`${label}: pass@k — random routes vs search ${s.routesVsSearch?.match === 'unmatched' ? '(UNMATCHED budgets)' : 'at matched budget'}`, curves, 'k (generations per question)')}${repair}</div>`;
}

function questionTable(records: readonly QuestionRecord[]): Html {
  if (records.length === 0) return html``;
  const limit = 2000;
  const rows = records.slice(0, limit).map((r) => {
    const state = questionState(r);
    const reach = Object.entries(r.reachable ?? {}).filter(([, v]) => v).map(([p]) => p).join(', ') || '—';
    const blind = Object.entries(r.blind ?? {}).flatMap(([p, sel]) => Object.entries(sel).filter(([, c]) => c?.correct).map(([s]) => `${p}→${s}`)).join(', ') || '—';
    const repaired = r.repair?.inFailureSet ? repairedBy(r).join(', ') || 'none' : '';
    const question = String(r.question);
    const text = question.length > 160 ? question.slice(0, 159) + '…' : question;
    return html`<tr class="${state}"><td>${r.id}</td><td>${text}</td><td>${r.gold}</td><td>${r.realized?.answer ?? '—'}${r.realized?.thought === 'unfinished' ? html` <span class="n">(cut while thinking)</span>` : ''}${r.realized?.truncated ? html` <span class="n">(truncated)</span>` : ''}</td><td>${state}</td><td>${reach}</td><td>${blind}</td><td>${repaired}</td></tr>`;
  });
  const more = records.length > limit ? html`<p class="n">showing ${limit} of ${records.length} questions; records.jsonl has all of them</p>` : '';
  return html`<table class="questions"><thead><tr><th>id</th><th>question</th><th>gold</th><th>deployed answer</th><th>state</th><th>reachable by</th><th>blind-correct</th><th>repaired by block</th></tr></thead><tbody>${rows}</tbody></table>${more}`;
}

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}h1{font-size:22px}h2{font-size:18px;margin-top:32px}
table{border-collapse:collapse;margin:8px 0}th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
table.summary th{font-weight:500}table.summary th.sub{padding-left:24px;font-weight:400}.ci{color:#555}.n{color:#777;font-size:12px}.charts{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}
figure{margin:0;padding:8px;border:1px solid #e3e3e3;border-radius:6px;max-width:480px}figure svg{width:100%;height:auto}figcaption{font-weight:600;margin-bottom:6px}
svg text{font-size:11px;fill:#333}svg text.small{font-size:9px}.grid{stroke:#e5e5e5}.whisker{stroke:#111;stroke-width:2}
.chip{display:inline-block;width:10px;height:10px;margin-right:4px}.legend{font-size:12px;margin-top:4px}
table.questions td:nth-child(2){max-width:420px}tr.realized td:nth-child(5){color:#2e9e6a}tr.reachable td:nth-child(5){color:#d9822b}tr.unreached td:nth-child(5){color:#777}
@media (prefers-color-scheme: dark){body{background:#1e1e1e;color:#ddd}svg text{fill:#ccc}th,td{border-color:#444}figure{border-color:#444}.ci{color:#aaa}}`;

/**
 * The report's policy: nothing loads but its inline style; no script, no plugin, no frame; forms
 * submit nowhere and no <base> can redirect relative links.
 */
export const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'; frame-src 'none'; object-src 'none'";

export function page(title: string, body: Html): string {
  return html`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${new Html(REPORT_CSP)}"><meta name="referrer" content="no-referrer"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><style>${new Html(STYLE)}</style></head><body>${body}</body></html>
`.text;
}

export interface RunReportInput {
  name: string;
  model: string;
  dataset: string;
  summary: RunSummary;
  records: readonly QuestionRecord[];
  /** Set when the run has not finished. */
  unfinished?: { done: number; total: number };
}

export function runReportHtml(run: RunReportInput): string {
  const note = run.unfinished ? html`<p><strong>Unfinished run:</strong> ${run.unfinished.done} of ${run.unfinished.total} questions; numbers cover the finished ones.</p>` : '';
  const body = html`<h1>Reach Audit — ${run.name}</h1><p class="n">model ${run.model} · dataset ${run.dataset} · n = ${run.summary.n}; rates with 95% Wilson intervals</p>${note}
${summaryTable(run.summary)}${runCharts(run.name, run.summary)}<h2>Questions</h2>${questionTable(run.records)}`;
  return page(`Reach Audit — ${run.name}`, body);
}

/** Ceilings along k, as stored in the comparison: Δ per k and curve with its interval, then where each curve changes sign. Absent in older files. */
function passAtKDeltaSection(deltas: readonly PassAtKDeltaCurve[] | undefined): Html | string {
  if (!deltas || deltas.length === 0) return '';
  return html`<h2>Ceilings along k: tuned − base pass@k (pts) [95% CI], n = ${deltas[0].n}</h2>
<table><thead><tr><th>k</th>${deltas.map((c) => html`<th>Δ ${c.what}</th>`)}</tr></thead><tbody>${deltas[0].points.map(
    (_, i) => html`<tr><th>${i + 1}</th>${deltas.map((c) => html`<td>${deltaAtKText(c.points[i])}</td>`)}</tr>`,
  )}</tbody></table>
<p class="n">ceiling = realized, or reached within k by some probe (the comparison's reachable ceiling, within k). Intervals: Newcombe's paired score where every value is 0/1, else a seeded paired percentile bootstrap; none below ${MIN_BOOTSTRAP_QUESTIONS} questions ([—]).</p>
<ul>${deltas.map((c) => html`<li>${crossingText(c)}</li>`)}</ul>`;
}

/** Did training move the forks: saved by a fork on the questions neither checkpoint realizes. Empty without fork results on both. */
function forkTransitionSection(base: readonly QuestionRecord[], tuned: readonly QuestionRecord[]): Html | string {
  const line = safeLine(() => {
    const t = forkTransition(base, tuned);
    return t ? forkTransitionText(t) : undefined;
  });
  return line === '' ? '' : html`<p>${line}</p>`;
}

export function comparisonReportHtml(c: StoredComparison, baseRecords: readonly QuestionRecord[], tunedRecords: readonly QuestionRecord[]): string {
  const cmp = c.comparison;
  const points = (x: unknown) => (typeof x === 'number' ? fixed(100 * x, 1) : '—');
  const delta = (label: string, d: typeof cmp.realized) =>
    html`<tr><th>${label}</th><td>${pct(d.base)} → ${pct(d.tuned)}</td><td>Δ ${typeof d.delta === 'number' && d.delta >= 0 ? '+' : '−'}${typeof d.delta === 'number' ? fixed(Math.abs(100 * d.delta), 1) : '—'} pts <span class="ci">[${points(d.ci?.lo)}, ${points(d.ci?.hi)}]</span></td><td class="n">McNemar p = ${typeof d.mcnemarP === 'number' ? d.mcnemarP.toPrecision(3) : '—'} · ${d.gained} gained, ${d.lost} lost · n = ${d.n}</td><td>${storedVerdictText(d.decision)}</td></tr>`;
  const deltas = [delta('realized', cmp.realized), delta('reachable ceiling', cmp.reachableCeiling), ...Object.entries(cmp.reachable ?? {}).map(([p, d]) => delta(`reachable by ${p}`, d))];
  const states = Object.keys(cmp.transitions ?? {}) as (keyof typeof cmp.transitions)[];
  const count = (ids: unknown) => (Array.isArray(ids) ? ids.length : '—');
  const transitions = html`<table><thead><tr><th>base ↓ / tuned →</th>${states.map((s) => html`<th>${s}</th>`)}</tr></thead><tbody>${states.map(
    (from) => html`<tr><th>${from}</th>${states.map((to) => html`<td>${count(cmp.transitions[from]?.[to])}</td>`)}</tr>`,
  )}</tbody></table>`;
  const nr = cmp.newlyRealized;
  const curves: Series[] = [];
  for (const [label, run, dashed] of [['base', c.base, false], ['tuned', c.tuned, true]] as const) {
    for (const [p, curve] of Object.entries(run.summary.passAtK ?? {})) curves.push({ label: `${label} · ${p}`, points: Object.entries(curve).map(([k, v]) => [Number(k), v]), dashed });
  }
  const body = html`<h1>Reach Audit — checkpoint comparison</h1><p class="n">base ${c.base.name} (${c.base.model}) vs tuned ${c.tuned.name} (${c.tuned.model}) · ${cmp.n} paired questions · ${cmp.realized?.ciMethod === 'newcombe-score' ? "Newcombe's paired score 95% intervals" : 'paired bootstrap 95% intervals (10,000 resamples)'}, exact McNemar; verdicts: better / worse need exact p &lt; 0.05 and the interval on that side of 0, equivalent needs the interval inside ±margin${cmp.realizedNotReached ? ` · ceiling = realized or reached by any probe (realized, no probe: base ${cmp.realizedNotReached.base}, tuned ${cmp.realizedNotReached.tuned})` : ''}</p>
<table class="summary"><tbody>${deltas}</tbody></table>
<h2>Transitions between states</h2>${transitions}${forkTransitionSection(baseRecords, tunedRecords)}
<p>Newly realized: ${nr?.n} — already reachable by the base model ${rateCell(nr?.alreadyReachable)}; newly reachable ${rateCell(nr?.newlyReachable)}</p>
<div class="charts">${lineChart('pass@k, base (solid) and tuned (dashed)', curves, 'k (generations per question)')}</div>
${passAtKDeltaSection(cmp.passAtKDeltas)}
<h2>Base — ${c.base.name}</h2>${summaryTable(c.base.summary)}${runCharts('base', c.base.summary)}
<h2>Tuned — ${c.tuned.name}</h2>${summaryTable(c.tuned.summary)}${runCharts('tuned', c.tuned.summary)}
<h2>Questions (tuned run)</h2>${questionTable(tunedRecords.length > 0 ? tunedRecords : baseRecords)}`;
  return page('Reach Audit — checkpoint comparison', body);
}
