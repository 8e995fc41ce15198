/**
 * The detail pane's "Where the answer is lost" section, for a question the depth probe ran on
 * (`record.depth`): the deployed output with each depth mark (0, ¼, ½, ¾, the last line break)
 * placed where its prefix ends, reached or not, the stretch between the deepest reaching mark and
 * the point of no return highlighted, and the marks as a table (the text alternative). The output
 * is model text: every piece goes in as a text node.
 */
import { h } from '../common/element';
import type { DepthResult, ForeclosureResult } from '../../../src/contract';
import { depthMarkText } from '../common/depthMarkText';
import { depthLine } from './depthLine';
import { foreclosureLine } from './foreclosureLine';

/** The deployed output with the foreclosure window's characters outlined; null without a decided window in range. */
function windowOutput(output: string, f: ForeclosureResult | undefined): HTMLElement | null {
  const chars = f?.outcome === 'window' ? f.window?.chars : undefined;
  if (!chars) return null;
  const [from, to] = chars.map((c) => Math.max(0, Math.min(output.length, c)));
  if (!(to > from)) return null;
  return h('pre', { class: 'text output foreclosure-output' },
    output.slice(0, from),
    h('mark', { class: 'foreclosure-window', title: 'the foreclosure window: the answer stops being reachable within these tokens' }, output.slice(from, to)),
    output.slice(to));
}

/** The deployed output cut at the marks, with a marker at each cut; null when the record has no character positions. */
function markedOutput(output: string, depth: DepthResult): HTMLElement | null {
  const points = depth.points;
  if (points.some((p) => typeof p.chars !== 'number')) return null;
  const at = (i: number) => Math.max(0, Math.min(output.length, points[i].chars!));
  // The stretch where the answer is lost: from the deepest reaching cut (or the start) to the point of no return.
  const lostFrom = depth.noReturn ? (depth.deepestReached === null ? 0 : at(depth.deepestReached)) : -1;
  const lostTo = depth.noReturn ? at(depth.noReturn.point) : -1;
  const order = points.map((_, i) => i).sort((a, b) => at(a) - at(b) || a - b);
  const pre = h('pre', { class: 'text output depth-output' });
  let from = 0;
  const text = (end: number) => {
    if (end <= from) return;
    // Split a piece at the lost stretch's edges so that stretch alone is highlighted.
    const edges = [from, ...[lostFrom, lostTo].filter((e) => e > from && e < end), end];
    for (let k = 0; k + 1 < edges.length; k++) {
      const piece = output.slice(edges[k], edges[k + 1]);
      const lost = edges[k] >= lostFrom && edges[k + 1] <= lostTo && lostTo > lostFrom;
      pre.appendChild(lost ? h('mark', { class: 'depth-lost', title: 'the answer is lost in this stretch' }, piece) : document.createTextNode(piece));
    }
    from = end;
  };
  for (const i of order) {
    text(at(i));
    const p = points[i];
    const noReturn = depth.noReturn?.point === i;
    const state = noReturn ? 'point of no return' : p.reached ? 'reached' : 'not reached';
    pre.appendChild(
      h('span', { class: `depth-mark ${noReturn ? 'depth-no-return' : p.reached ? 'depth-reached' : 'depth-missed'}`, title: `${depthMarkText(p.at)}: ${state} (${p.correct.filter(Boolean).length}/${p.correct.length} continuations correct)` },
        `▸${depthMarkText(p.at)}${p.reached ? '✓' : '✗'}`,
        h('span', { class: 'sr-only' }, ` ${state} `)),
    );
  }
  text(output.length);
  return pre;
}

function answersText(answers: readonly (string | null)[]): string {
  return answers.map((a) => (a === null || a === '' ? '∅' : a)).join(', ');
}

export function depthSection(depth: DepthResult | undefined, output: string, foreclosure?: ForeclosureResult): HTMLElement | null {
  if (!depth || !Array.isArray(depth.points)) return null;
  const table = h('table', { class: 'mini-table depth-table' },
    h('thead', {}, h('tr', {}, h('th', {}, 'mark'), h('th', {}, 'prefix tokens'), h('th', {}, 'correct'), h('th', {}, 'answers'), h('th', {}, ''))));
  const body = h('tbody');
  depth.points.forEach((p, i) => {
    const state = depth.noReturn?.point === i ? 'point of no return' : p.reached ? 'reached' : 'not reached';
    body.appendChild(h('tr', { class: depth.noReturn?.point === i ? 'depth-no-return-row' : '' },
      h('th', { scope: 'row' }, depthMarkText(p.at)),
      h('td', {}, `${p.tokens} of ${depth.outputTokens}`),
      h('td', {}, `${p.correct.filter(Boolean).length}/${p.correct.length}`),
      h('td', { class: 'answer' }, answersText(p.answers)),
      h('td', { class: p.reached ? 'reach-yes' : 'reach-no' }, state)));
  });
  table.appendChild(body);
  const marked = markedOutput(output, depth);
  // Without character positions (runs recorded before they were kept) the cut's own text still shows.
  const context = !marked && depth.noReturn
    ? h('pre', { class: 'text output depth-output' }, depth.noReturn.before, h('mark', { class: 'depth-mark depth-no-return' }, '▸point of no return'), depth.noReturn.after)
    : null;
  return h('section', { class: 'detail-section depth' },
    h('h3', {}, 'Where the answer is lost ', h('span', { class: 'muted' }, `(depth probe, ${depth.budget} continuations per mark)`)),
    h('p', { class: 'depth-line' }, depthLine(depth)),
    marked ?? context,
    table,
    foreclosure ? h('p', { class: 'foreclosure-line' }, foreclosureLine(foreclosure)) : null,
    windowOutput(output, foreclosure));
}
