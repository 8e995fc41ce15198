/**
 * The failure set × block repair map on a plain canvas (a chart.js matrix plugin would be a new
 * dependency for one chart). Rows are failure-set questions, most-repaired first; columns are the
 * silenced block. Hover names the cell, click opens the question. The per-block counts under it
 * are the text alternative.
 */
import { count, h, replaceChildren } from '../common/element';
import type { QuestionRow } from '../questions/questionRow';
import type { ThemeColors } from '../common/themeColors';

const MAX_HEIGHT = 360;
const LABEL_HEIGHT = 16;

export class RepairHeatmap {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly hover: HTMLElement;
  private readonly legend: HTMLElement;
  private rows: QuestionRow[] = [];
  private numBlocks = 0;
  private cellW = 0;
  private cellH = 0;

  constructor(private readonly onSelectQuestion: (id: string) => void) {
    this.canvas = h('canvas', { class: 'heatmap-canvas', role: 'img', tabindex: 0 });
    this.hover = h('div', { class: 'heatmap-hover muted', 'aria-live': 'polite' }, '\u00a0');
    this.legend = h('div', { class: 'heatmap-legend muted' });
    this.element = h('div', { class: 'heatmap' }, h('div', { class: 'heatmap-scroll' }, this.canvas), this.hover, this.legend);
    this.canvas.addEventListener('mousemove', (e) => this.describe(e));
    this.canvas.addEventListener('mouseleave', () => (this.hover.textContent = '\u00a0'));
    this.canvas.addEventListener('click', (e) => {
      const cell = this.cellAt(e);
      if (cell) this.onSelectQuestion(cell.row.id);
    });
  }

  draw(rows: readonly QuestionRow[], numBlocks: number, colors: ThemeColors): void {
    this.rows = rows.slice().sort((a, b) => b.repairedBy.length - a.repairedBy.length || a.index - b.index);
    this.numBlocks = Math.max(1, numBlocks);
    const width = Math.max(240, Math.min(900, this.element.clientWidth || 600));
    this.cellW = Math.max(4, Math.floor((width - 8) / this.numBlocks));
    this.cellH = Math.max(2, Math.min(14, Math.floor(MAX_HEIGHT / this.rows.length)));
    const cssW = this.cellW * this.numBlocks;
    const cssH = this.cellH * this.rows.length + LABEL_HEIGHT;
    const ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.ceil(cssW * ratio);
    this.canvas.height = Math.ceil(cssH * ratio);
    this.canvas.style.width = `${cssW}px`;
    this.canvas.style.height = `${cssH}px`;
    const repairedPerBlock = new Array<number>(this.numBlocks).fill(0);
    const ctx = this.canvas.getContext('2d');
    if (ctx) {
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, cssW, cssH);
      ctx.fillStyle = colors.muted;
      ctx.font = `${Math.min(10, this.cellW)}px ${colors.fontFamily}`;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      const every = Math.ceil(14 / this.cellW);
      for (let b = 0; b < this.numBlocks; b += every) ctx.fillText(String(b), b * this.cellW + this.cellW / 2, LABEL_HEIGHT / 2);
      const gap = this.cellH >= 6 && this.cellW >= 6 ? 1 : 0;
      this.rows.forEach((row, r) => {
        const map = row.record.repair?.correctBySilencedBlock ?? {};
        for (let b = 0; b < this.numBlocks; b++) {
          const value = map[String(b)];
          if (value === true) repairedPerBlock[b]++;
          ctx.fillStyle = value === true ? colors.cellOn : colors.cellOff;
          if (value === undefined) continue;
          ctx.fillRect(b * this.cellW, LABEL_HEIGHT + r * this.cellH, this.cellW - gap, this.cellH - gap);
        }
      });
    } else {
      for (const row of this.rows) for (const b of row.repairedBy) if (b < this.numBlocks) repairedPerBlock[b]++;
    }
    const best = repairedPerBlock.reduce((bi, v, i, all) => (v > all[bi] ? i : bi), 0);
    const label = `Repair map of ${this.rows.length} failure-set questions over ${this.numBlocks} blocks. Most repairs by block ${best}: ${repairedPerBlock[best]} of ${this.rows.length}.`;
    this.canvas.setAttribute('aria-label', label);
    replaceChildren(this.legend,
      h('span', { class: 'swatch swatch-on', 'aria-hidden': 'true' }), ' repaired  ',
      h('span', { class: 'swatch swatch-off', 'aria-hidden': 'true' }), ` not repaired · n = ${count(this.rows.length)} failure-set questions`);
  }

  private cellAt(e: MouseEvent): { row: QuestionRow; block: number } | undefined {
    const rect = this.canvas.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const y = e.clientY - rect.top - LABEL_HEIGHT;
    if (y < 0) return undefined;
    const block = Math.floor(x / this.cellW);
    const row = this.rows[Math.floor(y / this.cellH)];
    return row && block >= 0 && block < this.numBlocks ? { row, block } : undefined;
  }

  private describe(e: MouseEvent): void {
    const cell = this.cellAt(e);
    if (!cell) {
      this.hover.textContent = '\u00a0';
      return;
    }
    const value = cell.row.record.repair?.correctBySilencedBlock?.[String(cell.block)];
    const preview = cell.row.preview.length > 80 ? cell.row.preview.slice(0, 79) + '…' : cell.row.preview;
    this.hover.textContent = `Question ${cell.row.id}, block ${cell.block}: ${value === true ? 'repaired' : value === false ? 'not repaired' : 'not scanned'} — ${preview}`;
  }
}
