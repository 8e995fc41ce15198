/**
 * The Tables tab: each cross-run table as the CLI prints it — title, the headline "X of Y" and its
 * rule, the table (every rate with its interval and n), and what was listed apart. Cells are text.
 */
import { h, replaceChildren } from '../common/element';
import type { TableData } from '../../../src/contract';

export function tableSection(t: TableData): HTMLElement {
  const head = h('tr', {}, ...t.headers.map((c) => h('th', { scope: 'col' }, c)));
  const body = t.rows.map((r) => h('tr', {}, ...r.map((c, i) => (i === 0 ? h('th', { scope: 'row' }, c) : h('td', {}, c)))));
  return h(
    'section',
    { class: 'rt-section', 'data-table': t.id, 'aria-label': t.title },
    h('h2', {}, t.title),
    ...t.notes.map((n, i) => h('p', { class: i === 0 ? 'rt-headline' : 'rt-rule muted' }, n)),
    t.rows.length === 0
      ? h('p', { class: 'muted rt-empty' }, 'No rows: none of the selected runs has what this table needs.')
      : h('div', { class: 'rt-scroll' }, h('table', { class: 'rt-table' }, h('thead', {}, head), h('tbody', {}, ...body))),
    t.apart.length > 0 ? h('ul', { class: 'rt-apart' }, ...t.apart.map((a) => h('li', {}, a))) : null,
  );
}

/** Fills `root` with the tables, after the sources and any warnings. */
export function renderTables(root: HTMLElement, tables: readonly TableData[], sources: readonly string[], warnings: readonly string[]): void {
  replaceChildren(
    root,
    h('p', { class: 'muted rt-sources', title: sources.join('\n') }, `Built from ${sources.length} folder${sources.length === 1 ? '' : 's'}: ${sources.map(baseName).join(', ')}`),
    warnings.length > 0 ? h('ul', { class: 'rt-warnings' }, ...warnings.map((w) => h('li', {}, w))) : null,
    ...tables.map(tableSection),
  );
}

/** The last path segment (either separator), for short labels; the full path is in the tooltip. */
export function baseName(folder: string): string {
  const parts = folder.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? folder;
}
