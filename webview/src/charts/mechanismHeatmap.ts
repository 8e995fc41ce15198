/**
 * The failure set × block map of MLP attribution to g − d (`reach-audit explain`) on a plain
 * canvas, beside the repair map: rows are explained questions (grouped by their suppressor),
 * columns blocks; a cell's colour is the sign (pushes toward the answer / away from it) and its
 * strength the size against the question's largest. A ring marks the suppressor. Hover names the
 * cell, click opens the question; the table under it (suppressor counts, agreement with the repair
 * scan) is the text alternative.
 */
import { count, h, replaceChildren } from '../common/element';
import { formatPercent as percent, type MechanismData, type MechanismRecord } from '../../../src/contract';
import { withAlpha, type ThemeColors } from '../common/themeColors';
import { BlockGrid, type GridCell } from './blockGrid';

type Explained = MechanismRecord & { blocks: NonNullable<MechanismRecord['blocks']> };

export class MechanismHeatmap {
  private readonly grid: BlockGrid<Explained>;

  constructor(onSelectQuestion: (id: string) => void) {
    this.grid = new BlockGrid(onSelectQuestion, describe);
  }

  get element(): HTMLElement {
    return this.grid.element;
  }

  draw(data: MechanismData, colors: ThemeColors): void {
    const explained = data.accounts.filter((a): a is Explained => !a.skipped && Array.isArray(a.blocks) && a.blocks.length > 0);
    const none = Number.MAX_SAFE_INTEGER;
    const rows = explained.slice().sort((a, b) => (a.suppressor ?? none) - (b.suppressor ?? none));
    const s = data.summary;
    const blocks = Math.max(1, s.numBlocks);
    const most = s.suppressorCounts.reduce((bi, v, i, all) => (v > all[bi] ? i : bi), 0);
    const label = `MLP attribution map of ${rows.length} explained failure-set questions over ${blocks} blocks. Most often the suppressor: block ${most}, ${s.suppressorCounts[most]} of ${s.explained}.`;
    this.grid.draw(rows, blocks, colors, label, (ctx, row, box) => {
      const scale = Math.max(...row.blocks.map((b) => Math.abs(b.mlp)), 1e-9);
      row.blocks.forEach((block, b) => {
        const strength = 0.15 + 0.85 * Math.min(1, Math.abs(block.mlp) / scale);
        const cell = box(b);
        ctx.fillStyle = withAlpha(block.mlp < 0 ? colors.damage : colors.reachable, strength);
        ctx.fillRect(cell.x, cell.y, cell.w, cell.h);
        if (row.suppressor === b && cell.h >= 5) {
          ctx.strokeStyle = colors.foreground;
          ctx.lineWidth = 1;
          ctx.strokeRect(cell.x + 0.5, cell.y + 0.5, cell.w - 1, cell.h - 1);
        }
      });
    });
    const agreement = (label: string, a: MechanismData['summary']['withIdentified']) =>
      a ? h('tr', {}, h('th', { scope: 'row' }, label), h('td', { class: 'num' }, percent(a.rate)), h('td', { class: 'num muted' }, `[${percent(a.ci.lo)}, ${percent(a.ci.hi)}]`), h('td', { class: 'num muted' }, `${count(a.agree)}/${count(a.n)}`), h('td', { class: 'num muted' }, a.chanceExpected.toFixed(1)), h('td', { class: 'num muted' }, a.p < 1e-4 ? a.p.toExponential(1) : a.p.toFixed(4))) : null;
    replaceChildren(this.grid.legend,
      h('span', { class: 'swatch swatch-neg', 'aria-hidden': 'true' }), ' pushes the answer away  ',
      h('span', { class: 'swatch swatch-pos', 'aria-hidden': 'true' }), ` pushes toward it · framed: the suppressor · n = ${count(rows.length)} explained of ${count(s.failureSetSize)}`,
      h('table', { class: 'mini-table numbers' },
        h('thead', {}, h('tr', {}, h('th', {}, 'block'), ...s.suppressorCounts.map((_, b) => h('th', { class: 'num' }, String(b))))),
        h('tbody', {}, h('tr', {}, h('th', { scope: 'row' }, 'suppressor of'), ...s.suppressorCounts.map((c) => h('td', { class: 'num' }, count(c)))))),
      h('table', { class: 'mini-table numbers' },
        h('thead', {}, h('tr', {}, h('th', {}, 'suppressor agrees with'), h('th', {}, 'rate'), h('th', {}, '95% CI'), h('th', {}, 'k/n'), h('th', { title: 'the same suppressors shuffled across the questions' }, 'expected (shuffled)'), h('th', { title: 'permutation null: assumes the questions exchangeable (a shared question type that moves suppressors and repairs together makes agreement beyond it without any link)' }, 'permutation p (exchangeable questions)'))),
        h('tbody', {}, agreement(`identified block ${s.identifiedBlock ?? '—'}, where it repairs`, s.withIdentified), agreement('a block that repairs it', s.withRepairing))));
    const swatches = this.grid.legend.querySelectorAll<HTMLElement>('.swatch');
    swatches[0]?.style.setProperty('background', colors.damage);
    swatches[1]?.style.setProperty('background', colors.reachable);
  }
}

function describe({ row, block }: GridCell<Explained>): string {
  const b = row.blocks[block];
  return b
    ? `Question ${row.id}, block ${block}: MLP ${b.mlp.toFixed(2)}, attention ${b.attention.toFixed(2)}, lens g − d ${b.lens.toFixed(2)}${row.suppressor === block ? ' (the suppressor)' : ''}`
    : `Question ${row.id}, block ${block}`;
}
