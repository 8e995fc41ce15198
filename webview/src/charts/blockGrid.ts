/**
 * A question × block grid on a plain canvas (a chart.js matrix plugin would be a new dependency):
 * rows are questions, columns the model's blocks, block numbers along the top. It sizes the
 * canvas for the rows, finds the cell under the pointer, names it on hover and opens its question
 * on click; what a cell shows is the caller's (the repair map, the attribution map).
 */
import { h } from '../common/element';
import type { ThemeColors } from '../common/themeColors';

const MAX_HEIGHT = 360;
const LABEL_HEIGHT = 16;

export interface GridCell<Row> {
  row: Row;
  block: number;
}

/** Where cell (r, b) is drawn, with the gap between cells already taken off. */
export interface CellBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

export class BlockGrid<Row extends { id: string }> {
  readonly element: HTMLElement;
  /** Under the grid: the caller's legend and its text alternative (counts, tables). */
  readonly legend: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly hover: HTMLElement;
  private rows: readonly Row[] = [];
  private numBlocks = 0;
  private cellW = 0;
  private cellH = 0;

  constructor(onSelectQuestion: (id: string) => void, private readonly describeCell: (cell: GridCell<Row>) => string) {
    this.canvas = h('canvas', { class: 'heatmap-canvas', role: 'img', tabindex: 0 });
    this.hover = h('div', { class: 'heatmap-hover muted', 'aria-live': 'polite' }, '\u00a0');
    this.legend = h('div', { class: 'heatmap-legend muted' });
    this.element = h('div', { class: 'heatmap' }, h('div', { class: 'heatmap-scroll' }, this.canvas), this.hover, this.legend);
    this.canvas.addEventListener('mousemove', (e) => {
      const cell = this.cellAt(e);
      this.hover.textContent = cell ? this.describeCell(cell) : '\u00a0';
    });
    this.canvas.addEventListener('mouseleave', () => (this.hover.textContent = '\u00a0'));
    this.canvas.addEventListener('click', (e) => {
      const cell = this.cellAt(e);
      if (cell) onSelectQuestion(cell.row.id);
    });
  }

  /**
   * Lays the grid out for `rows` (in the order given) and `numBlocks` columns and draws the block
   * numbers; `paint` then draws each row's cells. Without a 2D context (a test page) only the
   * layout and the label are set.
   */
  draw(rows: readonly Row[], numBlocks: number, colors: ThemeColors, label: string, paint: (ctx: CanvasRenderingContext2D, row: Row, box: (block: number) => CellBox) => void): void {
    this.rows = rows;
    this.numBlocks = Math.max(1, numBlocks);
    const width = Math.max(240, Math.min(900, this.element.clientWidth || 600));
    this.cellW = Math.max(4, Math.floor((width - 8) / this.numBlocks));
    this.cellH = Math.max(2, Math.min(14, Math.floor(MAX_HEIGHT / Math.max(1, rows.length))));
    const cssW = this.cellW * this.numBlocks;
    const cssH = this.cellH * rows.length + LABEL_HEIGHT;
    const ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.ceil(cssW * ratio);
    this.canvas.height = Math.ceil(cssH * ratio);
    this.canvas.style.width = `${cssW}px`;
    this.canvas.style.height = `${cssH}px`;
    this.canvas.setAttribute('aria-label', label);
    const ctx = this.canvas.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, cssW, cssH);
    ctx.fillStyle = colors.muted;
    ctx.font = `${Math.min(10, this.cellW)}px ${colors.fontFamily}`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    const every = Math.ceil(14 / this.cellW);
    for (let b = 0; b < this.numBlocks; b += every) ctx.fillText(String(b), b * this.cellW + this.cellW / 2, LABEL_HEIGHT / 2);
    const gap = this.cellH >= 6 && this.cellW >= 6 ? 1 : 0;
    rows.forEach((row, r) => paint(ctx, row, (b) => ({ x: b * this.cellW, y: LABEL_HEIGHT + r * this.cellH, w: this.cellW - gap, h: this.cellH - gap })));
  }

  private cellAt(e: MouseEvent): GridCell<Row> | undefined {
    const rect = this.canvas.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const y = e.clientY - rect.top - LABEL_HEIGHT;
    if (y < 0) return undefined;
    const block = Math.floor(x / this.cellW);
    const row = this.rows[Math.floor(y / this.cellH)];
    return row && block >= 0 && block < this.numBlocks ? { row, block } : undefined;
  }
}
