/**
 * The failure set × block map of MLP attribution to g − d (`reach-audit explain`) on a plain
 * canvas, beside the repair map: rows are explained questions (grouped by their suppressor),
 * columns blocks; a cell's colour is the sign (pushes toward the answer / away from it) and its
 * strength the size against the question's largest. A ring marks the suppressor. Hover names the
 * cell, click opens the question; the table under it (suppressor counts, agreement with the repair
 * scan) is the text alternative.
 */
import { count, h, replaceChildren } from '../common/element';
import type { MechanismData, MechanismRecord } from '../../../src/contract';
import { withAlpha, type ThemeColors } from '../common/themeColors';

const MAX_HEIGHT = 360;
const LABEL_HEIGHT = 16;

type Explained = MechanismRecord & { blocks: NonNullable<MechanismRecord['blocks']> };

function percent(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

export class MechanismHeatmap {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly hover: HTMLElement;
  private readonly legend: HTMLElement;
  private rows: Explained[] = [];
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

  draw(data: MechanismData, colors: ThemeColors): void {
    const explained = data.accounts.filter((a): a is Explained => !a.skipped && Array.isArray(a.blocks) && a.blocks.length > 0);
    const none = Number.MAX_SAFE_INTEGER;
    this.rows = explained.slice().sort((a, b) => (a.suppressor ?? none) - (b.suppressor ?? none));
    this.numBlocks = Math.max(1, data.summary.numBlocks);
    const width = Math.max(240, Math.min(900, this.element.clientWidth || 600));
    this.cellW = Math.max(4, Math.floor((width - 8) / this.numBlocks));
    this.cellH = Math.max(2, Math.min(14, Math.floor(MAX_HEIGHT / Math.max(1, this.rows.length))));
    const cssW = this.cellW * this.numBlocks;
    const cssH = this.cellH * this.rows.length + LABEL_HEIGHT;
    const ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.ceil(cssW * ratio);
    this.canvas.height = Math.ceil(cssH * ratio);
    this.canvas.style.width = `${cssW}px`;
    this.canvas.style.height = `${cssH}px`;
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
        const scale = Math.max(...row.blocks.map((b) => Math.abs(b.mlp)), 1e-9);
        row.blocks.forEach((block, b) => {
          const strength = 0.15 + 0.85 * Math.min(1, Math.abs(block.mlp) / scale);
          ctx.fillStyle = withAlpha(block.mlp < 0 ? colors.damage : colors.reachable, strength);
          ctx.fillRect(b * this.cellW, LABEL_HEIGHT + r * this.cellH, this.cellW - gap, this.cellH - gap);
          if (row.suppressor === b && this.cellH >= 6) {
            ctx.strokeStyle = colors.foreground;
            ctx.lineWidth = 1;
            ctx.strokeRect(b * this.cellW + 0.5, LABEL_HEIGHT + r * this.cellH + 0.5, this.cellW - gap - 1, this.cellH - gap - 1);
          }
        });
      });
    }
    const s = data.summary;
    const most = s.suppressorCounts.reduce((bi, v, i, all) => (v > all[bi] ? i : bi), 0);
    this.canvas.setAttribute('aria-label', `MLP attribution map of ${this.rows.length} explained failure-set questions over ${this.numBlocks} blocks. Most often the suppressor: block ${most}, ${s.suppressorCounts[most]} of ${s.explained}.`);
    const agreement = (label: string, a: MechanismData['summary']['withIdentified']) =>
      a ? h('tr', {}, h('th', { scope: 'row' }, label), h('td', { class: 'num' }, percent(a.rate)), h('td', { class: 'num muted' }, `[${percent(a.ci.lo)}, ${percent(a.ci.hi)}]`), h('td', { class: 'num muted' }, `${count(a.agree)}/${count(a.n)}`), h('td', { class: 'num muted' }, a.chanceExpected.toFixed(1)), h('td', { class: 'num muted' }, a.p < 1e-4 ? a.p.toExponential(1) : a.p.toFixed(4))) : null;
    replaceChildren(this.legend,
      h('span', { class: 'swatch swatch-neg', 'aria-hidden': 'true' }), ' pushes the answer away  ',
      h('span', { class: 'swatch swatch-pos', 'aria-hidden': 'true' }), ` pushes toward it · framed: the suppressor · n = ${count(this.rows.length)} explained of ${count(s.failureSetSize)}`,
      h('table', { class: 'mini-table numbers' },
        h('thead', {}, h('tr', {}, h('th', {}, 'block'), ...s.suppressorCounts.map((_, b) => h('th', { class: 'num' }, String(b))))),
        h('tbody', {}, h('tr', {}, h('th', { scope: 'row' }, 'suppressor of'), ...s.suppressorCounts.map((c) => h('td', { class: 'num' }, count(c)))))),
      h('table', { class: 'mini-table numbers' },
        h('thead', {}, h('tr', {}, h('th', {}, 'suppressor agrees with'), h('th', {}, 'rate'), h('th', {}, '95% CI'), h('th', {}, 'k/n'), h('th', {}, 'chance'), h('th', {}, 'exact p'))),
        h('tbody', {}, agreement(`identified block ${s.identifiedBlock ?? '—'}`, s.withIdentified), agreement('a block that repairs it', s.withRepairing))));
    const swatches = this.legend.querySelectorAll<HTMLElement>('.swatch');
    swatches[0]?.style.setProperty('background', colors.damage);
    swatches[1]?.style.setProperty('background', colors.reachable);
  }

  private cellAt(e: MouseEvent): { row: Explained; block: number } | undefined {
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
    const b = cell.row.blocks[cell.block];
    this.hover.textContent = b
      ? `Question ${cell.row.id}, block ${cell.block}: MLP ${b.mlp.toFixed(2)}, attention ${b.attention.toFixed(2)}, lens g − d ${b.lens.toFixed(2)}${cell.row.suppressor === cell.block ? ' (the suppressor)' : ''}`
      : `Question ${cell.row.id}, block ${cell.block}`;
  }
}
