/**
 * What of the audit panel a user can see, measured in the rendered page (boxes, not pictures): the
 * comparison's paired differences, transition table and "Ceilings along k" chart, the question
 * table, the detail pane, the States column and the headline. Shared by the VS Code suite
 * (test/suite/comparisonRoom.test.ts, the panel beside a dataset in code-server) and the harness
 * (comparisonRoom.test.ts here, the page at the panel's measured sizes). DOM-free: the page-side
 * part is a function's source.
 */

/** The least height, in CSS px, of a question table a user can work in (about seven rows). */
export const TABLE_USABLE = 200;
/** The least height of the detail pane: the question's header, its text and the deployed answer. */
export const DETAIL_USABLE = 200;

/** One element's box and what of it can be seen once every box around it is scrolled to it. */
export interface Seen {
  height: number;
  width: number;
  visibleHeight: number;
  visibleWidth: number;
  /** The boxes around it that scroll (their content overflows them), innermost first; "page" is the document's own. */
  scrollers: { box: string; client: number; content: number }[];
}

export interface Measured {
  panel: { width: number; height: number };
  headline: { height: number; content: number };
  /** The comparison's parts (ROOM_PARTS), each as a user sees it after clicking its tab and scrolling to it. */
  parts: Record<string, Seen>;
  table: Seen;
  detail: Seen;
  states: Seen;
}

/** The comparison's parts the issue names: its paired differences and transitions, and the chart along k. */
export const ROOM_PARTS = { parts: { 'the paired differences': '.compare-deltas', 'the transition table': '.transitions', 'the chart along k': '.compare-pass-at-k .chart-box' } };

/**
 * Page-side, applied to ROOM_PARTS: shows the tab that holds each element (as a user clicks it),
 * scrolls it into view as a user scrolls (boxes whose overflow is hidden stay unscrolled), and measures what of it can be seen: its box cut by every
 * box around it that clips (overflow other than visible), by the tab strip over it, and by the
 * page. Walks the flat tree (slots, shadow roots): the toolkit lays its tabs out in a shadow root.
 * Answers null until the page has held its size since the last ask and the chart is drawn (the
 * caller retries).
 */
export const MEASURE_ROOM = `(want) => {
  const size = window.innerWidth + 'x' + window.innerHeight;
  if (window.__roomSize !== size) { window.__roomSize = size; return null; }
  const parentOf = (el) => el.assignedSlot || el.parentElement || (el.parentNode instanceof ShadowRoot ? el.parentNode.host : null);
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const show = (el) => {
    for (let p = el; p; p = parentOf(p)) {
      if (p.tagName === 'VSCODE-PANEL-VIEW' && p.hidden) { const tab = document.getElementById(p.id.replace(/^view-/, 'tab-')); if (tab) tab.click(); }
      if (p.tagName === 'DETAILS' && !p.open) p.open = true;
    }
  };
  const panels = document.querySelector('vscode-panels');
  const strip = panels && panels.shadowRoot ? panels.shadowRoot.querySelector('[part~="tablist"]') : null;
  const seen = (el) => {
    const r = el.getBoundingClientRect();
    let top = Math.max(r.top, 0), bottom = Math.min(r.bottom, window.innerHeight), left = Math.max(r.left, 0), right = Math.min(r.right, window.innerWidth);
    const scrollers = [];
    let inTabs = false;
    for (let p = parentOf(el); p && p !== document.documentElement; p = parentOf(p)) {
      if (p === panels) inTabs = true;
      const s = getComputedStyle(p);
      const clipY = s.overflowY !== 'visible', clipX = s.overflowX !== 'visible';
      if (!clipY && !clipX) continue;
      const b = p.getBoundingClientRect();
      const t = b.top + p.clientTop, l = b.left + p.clientLeft;
      if (clipY) { top = Math.max(top, t); bottom = Math.min(bottom, t + p.clientHeight); }
      if (clipX) { left = Math.max(left, l); right = Math.min(right, l + p.clientWidth); }
      const scrollsY = /auto|scroll/.test(s.overflowY) && p.scrollHeight > p.clientHeight + 1;
      const scrollsX = /auto|scroll/.test(s.overflowX) && p.scrollWidth > p.clientWidth + 1;
      if (scrollsY || scrollsX) scrollers.push({ box: name(p) + (scrollsX && !scrollsY ? ' (sideways)' : ''), client: scrollsY ? p.clientHeight : p.clientWidth, content: scrollsY ? p.scrollHeight : p.scrollWidth });
    }
    // A tab strip that stays at the top as the page scrolls covers what scrolls under it.
    if (inTabs && strip && getComputedStyle(strip).position === 'sticky') top = Math.max(top, strip.getBoundingClientRect().bottom);
    const page = document.scrollingElement;
    if (page && page.scrollHeight > page.clientHeight + 1 && getComputedStyle(document.body).overflowY !== 'hidden') scrollers.push({ box: 'page', client: page.clientHeight, content: page.scrollHeight });
    const round = (x) => Math.round(x);
    return { height: round(r.height), width: round(r.width), visibleHeight: round(Math.max(0, bottom - top)), visibleWidth: round(Math.max(0, right - left)), scrollers };
  };
  const look = (selector) => {
    const el = document.querySelector(selector);
    if (!el) return undefined;
    show(el);
    el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    // A script can scroll a box whose overflow is hidden; a user cannot: put those back.
    for (let p = parentOf(el); p; p = parentOf(p)) {
      const s = getComputedStyle(p);
      if (s.overflowX === 'hidden' || s.overflowX === 'clip') p.scrollLeft = 0;
      if (s.overflowY === 'hidden' || s.overflowY === 'clip') p.scrollTop = 0;
    }
    return seen(el);
  };
  const parts = {};
  for (const [key, selector] of Object.entries(want.parts)) {
    const s = look(selector);
    if (!s) return null;
    parts[key] = s;
  }
  // The chart is drawn once its box is laid out: wait for its canvas to have a size.
  const canvas = document.querySelector('.compare-pass-at-k canvas');
  if (!canvas || canvas.width === 0) return null;
  const table = look('.qt-viewport');
  const detail = look('.detail');
  const states = look('.qt-header .col-state');
  const headline = document.querySelector('.headline');
  if (!table || !detail || !states || !document.querySelector('.detail-title')) return null;
  return { panel: { width: window.innerWidth, height: window.innerHeight }, headline: { height: Math.round(headline.getBoundingClientRect().height), content: headline.scrollHeight }, parts, table, detail, states };
}`;

/** What a user cannot read at `size`, one sentence each (none: the layout has room). */
export function roomProblems(m: Measured, size: string): string[] {
  const problems: string[] = [];
  for (const [what, s] of Object.entries(m.parts)) {
    if (s.height <= 0) problems.push(`${what} at ${size} is not laid out: ${JSON.stringify(s)}`);
    if (s.visibleHeight < s.height - 1 || s.visibleWidth < s.width - 1) problems.push(`${what} at ${size}: ${s.visibleWidth}×${s.visibleHeight} of ${s.width}×${s.height} px can be seen (${JSON.stringify(s.scrollers)})`);
    if (s.scrollers.length > 1) problems.push(`${what} at ${size} sits in ${s.scrollers.length} scroll boxes, one inside another: ${JSON.stringify(s.scrollers)}`);
  }
  if (m.table.visibleHeight < TABLE_USABLE) problems.push(`the question table at ${size} shows ${m.table.visibleHeight} px (panel ${m.panel.width}×${m.panel.height})`);
  if (m.detail.visibleHeight < DETAIL_USABLE) problems.push(`the detail pane at ${size} shows ${m.detail.visibleHeight} px (panel ${m.panel.width}×${m.panel.height})`);
  if (m.states.visibleWidth < m.states.width - 1) problems.push(`the States column at ${size} shows ${m.states.visibleWidth} of ${m.states.width} px`);
  if (m.headline.content > m.headline.height + 1) problems.push(`the headline at ${size} shows ${m.headline.height} of ${m.headline.content} px`);
  return problems;
}
