/**
 * The 3×3 transition table of a checkpoint comparison: rows are the base checkpoint's state of a
 * question, columns the tuned checkpoint's, with totals. Every count is a button (keyboard and
 * screen-reader reachable, aria-pressed while it filters the table) that selects those questions.
 */
import { COMPARED_STATES, STATE_HEADINGS, type TransitionCell, type TransitionGrid } from './comparisonModel';
import { count, h } from '../common/element';

/** Up: the tuned checkpoint is in a better state (realized > reachable > unreached). */
function direction(cell: TransitionCell): 'same' | 'up' | 'down' {
  const from = COMPARED_STATES.indexOf(cell.from);
  const to = COMPARED_STATES.indexOf(cell.to);
  return from === to ? 'same' : to < from ? 'up' : 'down';
}

export function transitionTable(grid: TransitionGrid, selectedKey: string | undefined, onSelect: (key: string) => void): HTMLTableElement {
  const cellButton = (cell: TransitionCell): HTMLElement => {
    const n = cell.ids.length;
    const words = `${count(n)} question${n === 1 ? '' : 's'}: base ${STATE_HEADINGS[cell.from]} → tuned ${STATE_HEADINGS[cell.to]}`;
    const button = h(
      'button',
      {
        type: 'button',
        class: `transition-cell transition-${direction(cell)}`,
        'data-key': cell.key,
        'aria-pressed': cell.key === selectedKey ? 'true' : 'false',
        'aria-label': `${words}. Show them in the table.`,
        title: n === 0 ? words : `${words}. Click to show them in the table.`,
        disabled: n === 0,
      },
      count(n),
    );
    button.addEventListener('click', () => onSelect(cell.key));
    return button;
  };

  return h(
    'table',
    { class: 'mini-table transitions', 'aria-label': 'Transitions: base state (rows) to tuned state (columns), question counts' },
    h('thead', {},
      h('tr', {},
        h('th', { scope: 'col', class: 'transition-corner' }, 'base ↓ · tuned →'),
        ...COMPARED_STATES.map((s) => h('th', { scope: 'col', class: 'num' }, STATE_HEADINGS[s])),
        h('th', { scope: 'col', class: 'num' }, 'total'))),
    h('tbody', {},
      ...grid.rows.map((row) =>
        h('tr', {},
          h('th', { scope: 'row' }, STATE_HEADINGS[row.from]),
          ...row.cells.map((cell) => h('td', { class: 'num' }, cellButton(cell))),
          h('td', { class: 'num transition-total' }, count(row.total))))),
    h('tfoot', {},
      h('tr', {},
        h('th', { scope: 'row' }, 'total'),
        ...grid.columnTotals.map((t) => h('td', { class: 'num transition-total' }, count(t))),
        h('td', { class: 'num transition-total' }, count(grid.total)))),
  );
}
