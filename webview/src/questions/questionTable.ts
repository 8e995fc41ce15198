/**
 * The question table: an ARIA grid that renders only the rows in view (virtual scrolling), so
 * 10,000 questions cost as much as forty. Rows are a fixed height and recycled; the scroll height
 * comes from a spacer. Keyboard: ↑/↓, PgUp/PgDn, Home/End move the selection, Enter reveals the
 * question in the dataset. Toolkit's vscode-data-grid is not used: it renders every row.
 * Columns are resizable: each edge between two columns is one handle (drag it, or focus it and
 * press ←/→), which resizes the column beside it and the question column, which takes what the
 * others leave; ids, gold and answers are cut in the middle when narrow, and every cell shows its
 * whole value on hover.
 */
import { h, replaceChildren } from '../common/element';
import { middleText } from '../common/middleText';
import type { ColumnWidths, SortKey } from '../../../src/contract';
import type { QuestionRow } from './questionRow';
import { stateChips, stateWords } from './stateChips';

export const ROW_HEIGHT = 26;
/** Rows with their chips on two lines: when the States column is narrower than its default. */
export const TALL_ROW_HEIGHT = 44;
/** The States column's default width (px). */
const WIDTH_STATES = 310;
const OVERSCAN = 4;

interface Column {
  key: SortKey;
  label: string;
  className: string;
  /** Width in px before the user resizes; undefined: this column takes the remaining space. */
  width?: number;
  /** Smallest width a resize leaves it. */
  min: number;
  cell: (row: QuestionRow) => Node | string;
  /** The whole value, shown on hover (cells may be cut). */
  title: (row: QuestionRow) => string;
}

const COLUMNS: Column[] = [
  { key: 'id', label: 'Id', className: 'col-id', width: 120, min: 48, cell: (r) => middleText(r.id), title: (r) => r.id },
  { key: 'question', label: 'Question', className: 'col-question', min: 80, cell: (r) => r.preview, title: (r) => r.preview },
  { key: 'gold', label: 'Gold', className: 'col-gold', width: 64, min: 40, cell: (r) => middleText(r.gold), title: (r) => `Gold: ${r.gold}` },
  {
    key: 'answer',
    label: 'Deployed',
    className: 'col-answer',
    width: 80,
    min: 40,
    cell: (r) => middleText(r.answer === '' ? '∅' : r.answer, r.record.realized?.correct ? 'answer-correct' : 'answer-wrong'),
    title: (r) => `Deployed answer: ${r.answer === '' ? 'none' : r.answer} (${r.record.realized?.correct ? 'correct' : 'wrong'})`,
  },
  {
    key: 'state',
    label: 'States',
    className: 'col-state',
    // The widest compact chip set (reach ×3, blind ×3, repair: L12 +2, truncated) fits (panel.test.ts measures it).
    width: WIDTH_STATES,
    min: 60,
    cell: (r) => {
      const box = h('span', { class: 'chips' });
      for (const c of stateChips(r, true)) box.appendChild(c);
      return box;
    },
    title: (r) => stateWords(r).join('\n'),
  },
];

/** The column that absorbs the width the others leave. */
const FLEX_COLUMN: SortKey = 'question';
const KEY_STEP = 16;

/** The grid template for `widths` (px per column; the flex column takes the rest). */
export function columnTemplate(widths: ColumnWidths): string {
  return COLUMNS.map((c) => {
    if (c.key === FLEX_COLUMN) return `minmax(${c.min}px, 1fr)`;
    const stored = widths[c.key];
    if (stored !== undefined) return `${Math.max(c.min, Math.round(stored))}px`;
    if (c.width === undefined) return `minmax(${c.min}px, 1fr)`;
    // Not resized, a column gives way in a narrow pane (the States column's chips then wrap, ids and
    // answers keep their ends) rather than push the States column past the table's edge.
    return `minmax(${c.min}px, ${c.width}px)`;
  }).join(' ');
}

export interface TableCallbacks {
  /** The selection moved (click, keys, or programmatic). */
  onSelect: (row: QuestionRow) => void;
  /** Enter or a double-click on a row: reveal it in the dataset (beside the panel). */
  onActivate: (row: QuestionRow) => void;
  onSort: (key: SortKey) => void;
  onScroll: (scrollTop: number) => void;
  /** The user resized a column: the widths to keep (px). */
  onResize?: (widths: ColumnWidths) => void;
}

interface RenderedRow {
  element: HTMLElement;
  /** Position in `rows` this element shows, -1 when hidden. */
  position: number;
  /** The row object it was drawn from, to redraw when a live update replaces it. */
  drawn?: QuestionRow;
}

export class QuestionTable {
  readonly element: HTMLElement;
  private readonly viewport: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly headerCells = new Map<SortKey, HTMLElement>();
  private readonly pool: RenderedRow[] = [];
  private rows: QuestionRow[] = [];
  private selectedId: string | undefined;
  private frame = 0;
  private readonly idPrefix = 'qrow-';
  /** Viewport height and scroll position, kept from events so drawing never forces a layout. */
  private viewportHeight = 0;
  private scrollPosition = 0;
  private widths: ColumnWidths = {};
  /** Row height: one line, or two when the States column is too narrow for the widest chips on one. */
  private rowHeight = ROW_HEIGHT;

  constructor(private readonly callbacks: TableCallbacks) {
    const header = h('div', { class: 'qt-row qt-header', role: 'row', 'aria-rowindex': 1 });
    for (const column of COLUMNS) {
      const button = h('button', { class: 'qt-sort', type: 'button', title: `Sort by ${column.label.toLowerCase()}` }, column.label, h('span', { class: 'qt-sort-mark', 'aria-hidden': 'true' }));
      button.addEventListener('click', () => this.callbacks.onSort(column.key));
      const cell = h('div', { class: `qt-cell ${column.className}`, role: 'columnheader', 'aria-sort': 'none' }, button);
      if (column.key !== FLEX_COLUMN) cell.appendChild(this.resizeHandle(column, cell));
      this.headerCells.set(column.key, cell);
      header.appendChild(cell);
    }
    this.spacer = h('div', { class: 'qt-spacer' });
    this.viewport = h('div', { class: 'qt-viewport', role: 'rowgroup' }, this.spacer);
    this.element = h(
      'div',
      { class: 'qt', role: 'grid', 'aria-label': 'Questions', 'aria-colcount': COLUMNS.length, 'aria-rowcount': 1, 'aria-multiselectable': 'false', tabindex: 0 },
      h('div', { class: 'qt-head', role: 'rowgroup' }, header),
      this.viewport,
    );

    this.viewport.addEventListener('scroll', () => {
      this.scrollPosition = this.viewport.scrollTop;
      this.schedule();
      this.callbacks.onScroll(this.viewport.scrollTop);
    }, { passive: true });
    // A click only selects (the detail pane shows the question), so one can click through rows and
    // read them; the dataset opens on an explicit action: Enter, a double-click, the detail's button.
    this.viewport.addEventListener('click', (event) => {
      const row = this.rowAt(event.target);
      if (!row) return;
      this.select(row.id, false);
      this.element.focus({ preventScroll: true });
    });
    this.viewport.addEventListener('dblclick', (event) => {
      const row = this.rowAt(event.target);
      if (row) this.callbacks.onActivate(row);
    });
    this.element.addEventListener('keydown', (event) => this.onKey(event));
    this.setColumnWidths({});
    new ResizeObserver((entries) => {
      this.viewportHeight = entries[entries.length - 1].contentRect.height;
      this.schedule();
    }).observe(this.viewport);
    const states = this.headerCells.get('state');
    if (states) {
      new ResizeObserver((entries) => {
        const width = entries[entries.length - 1].borderBoxSize?.[0]?.inlineSize ?? states.getBoundingClientRect().width;
        if (width > 0) this.setTall(width < WIDTH_STATES - 0.5);
      }).observe(states);
    }
  }

  /** Shows `rows` (already filtered and sorted). Keeps the scroll position unless told otherwise. */
  setRows(rows: QuestionRow[], resetScroll: boolean): void {
    this.rows = rows;
    this.element.setAttribute('aria-rowcount', String(rows.length + 1));
    this.spacer.style.height = `${rows.length * this.rowHeight}px`;
    if (resetScroll) this.scrollTop = 0;
    // Fewer rows than before (another run): a position past the new end would draw from the middle
    // of nothing until the browser's clamp reports a scroll, so clamp it here as the browser will.
    else if (this.scrollPosition > this.maxScrollTop()) this.scrollTop = this.maxScrollTop();
    for (const slot of this.pool) slot.position = -1;
    this.render();
  }

  /** Two-line rows (chips wrap) or one-line rows; the row at the top of the view stays there. */
  private setTall(tall: boolean): void {
    const height = tall ? TALL_ROW_HEIGHT : ROW_HEIGHT;
    if (height === this.rowHeight) return;
    const topRow = this.scrollPosition / this.rowHeight;
    this.rowHeight = height;
    this.element.classList.toggle('qt-tall', tall);
    this.spacer.style.height = `${this.rows.length * height}px`;
    for (const slot of this.pool) {
      slot.element.style.height = `${height}px`;
      slot.position = -1;
      slot.drawn = undefined;
    }
    this.scrollTop = topRow * height;
  }

  /** Column widths (px) as stored; unknown or missing columns keep their default. */
  setColumnWidths(widths: ColumnWidths | undefined): void {
    this.widths = { ...(widths ?? {}) };
    this.element.style.setProperty('--ra-cols', columnTemplate(this.widths));
  }

  /**
   * The drag handle on the edge a column shares with its neighbour nearer the question column: the
   * right edge left of it, the left edge right of it, so the edge follows the pointer (the question
   * column gives or takes the width). ←/→ move the edge from the keyboard.
   */
  private resizeHandle(column: Column, cell: HTMLElement): HTMLElement {
    const atStart = COLUMNS.indexOf(column) > COLUMNS.findIndex((c) => c.key === FLEX_COLUMN);
    // Moving the edge right widens a column left of the question column and narrows one right of it.
    const sign = atStart ? -1 : 1;
    const handle = h('div', {
      class: `qt-resize${atStart ? ' qt-resize-start' : ''}`,
      role: 'separator',
      'aria-orientation': 'vertical',
      'aria-label': `Resize the ${column.label.toLowerCase()} column`,
      title: `Drag to resize the ${column.label.toLowerCase()} column (or ←/→)`,
      tabindex: 0,
    });
    const begin = (): { start: number; max: number } => {
      // Freeze every column at its current width, so only the dragged one and the question column move.
      const frozen: ColumnWidths = {};
      let others = 0;
      for (const c of COLUMNS) {
        if (c.key === FLEX_COLUMN) continue;
        const width = this.headerCells.get(c.key)?.getBoundingClientRect().width ?? c.width ?? c.min;
        frozen[c.key] = width;
        if (c.key !== column.key) others += width;
      }
      const flexMin = COLUMNS.find((c) => c.key === FLEX_COLUMN)?.min ?? 80;
      this.setColumnWidths(frozen);
      return { start: frozen[column.key] ?? column.min, max: Math.max(column.min, this.element.clientWidth - others - flexMin) };
    };
    const resize = (width: number, max: number): void => {
      this.widths[column.key] = Math.max(column.min, Math.min(max, width));
      this.element.style.setProperty('--ra-cols', columnTemplate(this.widths));
    };
    handle.addEventListener('pointerdown', (event) => {
      event.preventDefault();
      event.stopPropagation();
      const { start, max } = begin();
      const x0 = event.clientX;
      handle.setPointerCapture(event.pointerId);
      cell.classList.add('resizing');
      const move = (e: PointerEvent): void => resize(start + sign * (e.clientX - x0), max);
      const end = (): void => {
        handle.removeEventListener('pointermove', move);
        handle.removeEventListener('pointerup', end);
        handle.removeEventListener('pointercancel', end);
        cell.classList.remove('resizing');
        this.callbacks.onResize?.({ ...this.widths });
      };
      handle.addEventListener('pointermove', move);
      handle.addEventListener('pointerup', end);
      handle.addEventListener('pointercancel', end);
    });
    handle.addEventListener('click', (event) => event.stopPropagation());
    handle.addEventListener('keydown', (event) => {
      if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
      event.preventDefault();
      event.stopPropagation();
      const { start, max } = begin();
      resize(start + sign * (event.key === 'ArrowRight' ? KEY_STEP : -KEY_STEP), max);
      this.callbacks.onResize?.({ ...this.widths });
    });
    return handle;
  }

  setSort(key: SortKey, descending: boolean): void {
    for (const [k, cell] of this.headerCells) cell.setAttribute('aria-sort', k === key ? (descending ? 'descending' : 'ascending') : 'none');
  }

  get scrollTop(): number {
    return this.scrollPosition;
  }

  /** The largest scroll position the current rows allow. */
  maxScrollTop(): number {
    return Math.max(0, this.rows.length * this.rowHeight - this.viewportHeight);
  }

  set scrollTop(value: number) {
    // Clamped here as the browser will clamp it, without reading layout back.
    this.scrollPosition = Math.max(0, Math.min(value, this.maxScrollTop()));
    this.viewport.scrollTop = this.scrollPosition;
    this.render();
  }

  /** Selects the question `id` if it is in the table; scrolls it into view when asked. */
  select(id: string | undefined, scrollIntoView: boolean): QuestionRow | undefined {
    this.selectedId = id;
    const position = id === undefined ? -1 : this.rows.findIndex((r) => r.id === id);
    if (position >= 0 && scrollIntoView) this.scrollToPosition(position);
    this.render();
    const row = position >= 0 ? this.rows[position] : undefined;
    if (row) this.callbacks.onSelect(row);
    return row;
  }

  focus(): void {
    this.element.focus();
  }

  /** Number of rows the table shows (after filter and search). */
  get length(): number {
    return this.rows.length;
  }

  private rowAt(target: EventTarget | null): QuestionRow | undefined {
    const element = target instanceof Element ? target.closest<HTMLElement>('.qt-body-row') : null;
    const slot = element ? this.pool.find((s) => s.element === element) : undefined;
    return slot && slot.position >= 0 ? this.rows[slot.position] : undefined;
  }

  private scrollToPosition(position: number): void {
    const top = position * this.rowHeight;
    const height = this.viewportHeight;
    if (top < this.scrollPosition) this.scrollTop = top;
    else if (top + this.rowHeight > this.scrollPosition + height) this.scrollTop = top + this.rowHeight - height;
  }

  private onKey(event: KeyboardEvent): void {
    if (event.target instanceof HTMLButtonElement) return;
    if (this.rows.length === 0) return;
    const current = this.selectedId === undefined ? -1 : this.rows.findIndex((r) => r.id === this.selectedId);
    const page = Math.max(1, Math.floor(this.viewportHeight / this.rowHeight) - 1);
    let next = current;
    switch (event.key) {
      case 'ArrowDown':
        next = current < 0 ? 0 : Math.min(this.rows.length - 1, current + 1);
        break;
      case 'ArrowUp':
        next = current < 0 ? 0 : Math.max(0, current - 1);
        break;
      case 'PageDown':
        next = Math.min(this.rows.length - 1, Math.max(0, current) + page);
        break;
      case 'PageUp':
        next = Math.max(0, current - page);
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = this.rows.length - 1;
        break;
      case 'Enter':
      case ' ':
        if (current >= 0) {
          event.preventDefault();
          this.callbacks.onActivate(this.rows[current]);
        }
        return;
      default:
        return;
    }
    event.preventDefault();
    this.select(this.rows[next].id, true);
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  /** Draws the rows in view into recycled row elements. */
  render(): void {
    // Before the first resize report (hidden tab), draw a screenful.
    const height = this.viewportHeight || 900;
    const first = Math.max(0, Math.floor(this.scrollPosition / this.rowHeight) - OVERSCAN);
    const last = Math.min(this.rows.length, Math.ceil((this.scrollPosition + height) / this.rowHeight) + OVERSCAN);
    const needed = last - first;
    while (this.pool.length < needed) {
      const element = h('div', { class: 'qt-row qt-body-row', role: 'row' });
      element.style.height = `${this.rowHeight}px`;
      this.viewport.appendChild(element);
      this.pool.push({ element, position: -1 });
    }
    // Keep rows already showing a visible position where they are; fill the rest.
    const showing = new Map<number, RenderedRow>();
    const free: RenderedRow[] = [];
    for (const slot of this.pool) {
      if (slot.position >= first && slot.position < last && !showing.has(slot.position)) showing.set(slot.position, slot);
      else free.push(slot);
    }
    for (let position = first; position < last; position++) {
      const row = this.rows[position];
      let slot = showing.get(position);
      if (!slot) {
        slot = free.pop()!;
        slot.position = position;
        slot.drawn = undefined;
        showing.set(position, slot);
      }
      if (slot.drawn !== row) {
        this.draw(slot.element, row, position);
        slot.drawn = row;
      }
      const selected = row.id === this.selectedId;
      slot.element.classList.toggle('selected', selected);
      slot.element.setAttribute('aria-selected', String(selected));
      slot.element.hidden = false;
    }
    for (const slot of free) {
      if (slot.position >= first && slot.position < last && showing.get(slot.position) === slot) continue;
      if (slot.drawn !== undefined) replaceChildren(slot.element);
      slot.position = -1;
      slot.drawn = undefined;
      slot.element.hidden = true;
      slot.element.removeAttribute('id');
    }
    const active = this.pool.find((s) => s.position >= 0 && this.rows[s.position]?.id === this.selectedId);
    if (active) this.element.setAttribute('aria-activedescendant', active.element.id);
    else this.element.removeAttribute('aria-activedescendant');
  }

  private draw(element: HTMLElement, row: QuestionRow, position: number): void {
    element.id = `${this.idPrefix}${position}`;
    element.setAttribute('aria-rowindex', String(position + 2));
    element.style.transform = `translateY(${position * this.rowHeight}px)`;
    replaceChildren(element);
    for (const column of COLUMNS) {
      const content = column.cell(row);
      const cell = h('div', { class: `qt-cell ${column.className}`, role: 'gridcell' }, content);
      cell.title = column.title(row);
      element.appendChild(cell);
    }
  }
}
