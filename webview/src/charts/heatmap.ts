/**
 * The failure set × block repair map. Rows are failure-set questions, most-repaired first; columns
 * are the silenced block. Hover names the cell, click opens the question. The per-block counts
 * under it are the text alternative.
 */
import { count, h, replaceChildren } from '../common/element';
import type { QuestionRow } from '../questions/questionRow';
import type { ThemeColors } from '../common/themeColors';
import { BlockGrid, type GridCell } from './blockGrid';

export class RepairHeatmap {
  private readonly grid: BlockGrid<QuestionRow>;

  constructor(onSelectQuestion: (id: string) => void) {
    this.grid = new BlockGrid(onSelectQuestion, describe);
  }

  get element(): HTMLElement {
    return this.grid.element;
  }

  draw(questions: readonly QuestionRow[], numBlocks: number, colors: ThemeColors): void {
    const rows = questions.slice().sort((a, b) => b.repairedBy.length - a.repairedBy.length || a.index - b.index);
    const blocks = Math.max(1, numBlocks);
    const repairedPerBlock = new Array<number>(blocks).fill(0);
    for (const row of rows) for (const b of row.repairedBy) if (b < blocks) repairedPerBlock[b]++;
    const best = repairedPerBlock.reduce((bi, v, i, all) => (v > all[bi] ? i : bi), 0);
    const label = `Repair map of ${rows.length} failure-set questions over ${blocks} blocks. Most repairs by block ${best}: ${repairedPerBlock[best]} of ${rows.length}.`;
    this.grid.draw(rows, blocks, colors, label, (ctx, row, box) => {
      const map = row.record.repair?.correctBySilencedBlock ?? {};
      for (let b = 0; b < blocks; b++) {
        const value = map[String(b)];
        if (value === undefined) continue;
        ctx.fillStyle = value === true ? colors.cellOn : colors.cellOff;
        const cell = box(b);
        ctx.fillRect(cell.x, cell.y, cell.w, cell.h);
      }
    });
    replaceChildren(this.grid.legend,
      h('span', { class: 'swatch swatch-on', 'aria-hidden': 'true' }), ' repaired  ',
      h('span', { class: 'swatch swatch-off', 'aria-hidden': 'true' }), ` not repaired · n = ${count(rows.length)} failure-set questions`);
  }
}

function describe({ row, block }: GridCell<QuestionRow>): string {
  const value = row.record.repair?.correctBySilencedBlock?.[String(block)];
  const preview = row.preview.length > 80 ? row.preview.slice(0, 79) + '…' : row.preview;
  return `Question ${row.id}, block ${block}: ${value === true ? 'repaired' : value === false ? 'not repaired' : 'not scanned'} — ${preview}`;
}
