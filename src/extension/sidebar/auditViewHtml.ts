/**
 * The Audit side view's page: a run's headline numbers (rate, 95% interval, n) and a bar chart of
 * question states drawn as inline SVG. No script at all; every string from a run is escaped and the
 * only style is the nonce'd block below. Pure (no vscode), so tests check the exact page.
 */
import { escapeHtml } from '../../common';
import { NO_NAVIGATION } from '../panel/panelHtml';
import { countedText, formatRateDetail, type RunHeadline } from './runHeadline';
import { storyHtml, STORY_STYLE, type SidebarStory } from './storyHtml';
import { liveCountText, type LiveCount } from './liveCountText';

export interface StateCounts {
  realized: number;
  reachableNotRealized: number;
  unreached: number;
}

export interface AuditViewContent {
  name: string;
  folder: string;
  headline?: RunHeadline;
  states?: StateCounts;
  recorded: number;
  /** A run of fewer than RATE_MIN_QUESTIONS questions: told question by question instead of rates. */
  story?: SidebarStory;
  /** summary.json is there; otherwise the numbers are over the questions finished so far. */
  finished?: boolean;
  /** The run is going now: its count, as the notification and the status bar show it. */
  live?: LiveCount;
}

function viewCsp(nonce: string): string {
  return `default-src 'none'; style-src 'nonce-${nonce}'; img-src data:; ${NO_NAVIGATION}`;
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 8px; }
h2 { font-size: 1.05em; margin: 8px 0 2px; word-break: break-all; }
.muted { color: var(--vscode-descriptionForeground); }
table { border-collapse: collapse; width: 100%; margin: 6px 0; }
td { padding: 2px 4px; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num .nw { white-space: nowrap; }
@media (max-width: 240px) { td { display: block; } td.num { text-align: left; padding-left: 12px; } }
.bar-realized { fill: var(--vscode-charts-green); }
.bar-reachable { fill: var(--vscode-charts-yellow); }
.bar-unreached { fill: var(--vscode-charts-red); }
.bar-track { fill: var(--vscode-editorWidget-background, transparent); stroke: var(--vscode-widget-border, var(--vscode-contrastBorder, transparent)); }
svg text { fill: var(--vscode-foreground); font-size: 11px; }
`;

function stateChart(states: StateCounts): string {
  const rows: [string, string, number][] = [
    ['Realized', 'bar-realized', states.realized],
    ['Reachable, not realized', 'bar-reachable', states.reachableNotRealized],
    ['Unreached', 'bar-unreached', states.unreached],
  ];
  const total = Math.max(1, states.realized + states.reachableNotRealized + states.unreached);
  const rowHeight = 34;
  const bars = rows
    .map(([label, cls, count], i) => {
      const y = i * rowHeight;
      const width = (200 * count) / total;
      return `<text x="0" y="${y + 11}">${escapeHtml(label)} · ${escapeHtml(String(count))}</text>` +
        `<rect class="bar-track" x="0" y="${y + 15}" width="200" height="12" rx="2"/>` +
        `<rect class="${cls}" x="0" y="${y + 15}" width="${Number.isFinite(width) ? width.toFixed(1) : '0'}" height="12" rx="2"><title>${escapeHtml(`${label}: ${count} of ${total}`)}</title></rect>`;
    })
    .join('');
  return `<svg role="img" aria-label="Question states" viewBox="0 0 202 ${rows.length * rowHeight}" width="100%" preserveAspectRatio="xMinYMin meet">${bars}</svg>`;
}

/**
 * A number as wrapping pieces ("37.5%" "(3/8," "95% CI" "13.7–69.4%)"): a narrow side bar breaks the
 * line between them and keeps the whole interval, where one unbreakable line was cut at the edge.
 */
export function valueHtml(text: string): string {
  return text.split(/ (?!CI)/).map((piece) => `<span class="nw">${escapeHtml(piece)}</span>`).join(' ');
}

/** `gone`: the name of the run that was in view until its folder was deleted (shown when no run is). */
export function auditViewHtml(content: AuditViewContent | undefined, nonce: string, gone?: string): string {
  let body: string;
  if (!content) {
    const deleted = gone ? `<p class="gone">${escapeHtml(`${gone} was deleted.`)}</p>` : '';
    body = `${deleted}<p class="muted">No run selected. Run an audit (Reach Audit: Run Reachability Audit) or select a run in the Runs view.</p>`;
  } else {
    const h = content.headline;
    const rows: [string, string][] = [];
    if (h) rows.push(['Realized', formatRateDetail(h.realized)]);
    for (const r of h?.reachable ?? []) rows.push([`Reachable · ${r.probe}`, formatRateDetail(r.rate)]);
    if (h && h.reachable.length > 1) rows.push(['Reachable · any probe', formatRateDetail(h.reachableAny)]);
    for (const b of h?.blind ?? []) rows.push([`Answer-blind · ${b.probe} · ${b.selector}`, formatRateDetail(b)]);
    if (h?.repair) {
      const r = h.repair;
      rows.push(['Failure set', String(r.failureSetSize)]);
      if (r.identifiedBlock !== undefined) rows.push([`Repair · block ${r.identifiedBlock}`, r.repairRate ? formatRateDetail(r.repairRate) : '—']);
    }
    const recorded = `${content.recorded} question${content.recorded === 1 ? '' : 's'} recorded`;
    // A run going now: the one live count (the numbers below are re-read from its files about once a second).
    const unfinished = content.live
      ? `<p class="muted unfinished live">${escapeHtml(liveCountText(content.live).replace(/^running/, 'Running'))}</p>`
      : content.finished === false || !h
      ? `<p class="muted unfinished">${escapeHtml(h ? `Unfinished: ${recorded}, no summary yet; the numbers are over the ${h.n} finished, as the panel shows them.` : `Unfinished: ${recorded}, no summary yet.`)}</p>`
      : '';
    const table = rows.length ? `<table>${rows.map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td class="num">${valueHtml(v)}</td></tr>`).join('')}</table>` : '';
    const title = `<h2>${escapeHtml(String(content.name))}</h2>`;
    // A run that audited nothing has no states: no bars of 0 beside its questions' "not audited".
    const states = content.states;
    const chart = states && states.realized + states.reachableNotRealized + states.unreached > 0 ? stateChart(states) : '';
    body = content.story
      ? `${title}<div class="muted">${escapeHtml(countedText(content.story.counts.n))}</div>${unfinished}${storyHtml(content.story)}${chart}`
      : `${title}<div class="muted">${h ? escapeHtml(`n = ${h.n} questions · 95% intervals`) : ''}</div>${unfinished}${table}${chart}`;
  }
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${viewCsp(nonce)}">
<style nonce="${nonce}">${STYLE}${content?.story ? STORY_STYLE : ''}</style>
</head>
<body>${body}</body>
</html>`;
}
