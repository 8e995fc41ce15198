/** The state chips of one question (table cell and detail header), coloured by theme variables in CSS. */
import { h } from '../common/element';
import { Flag, type QuestionRow } from './questionRow';

function chip(kind: string, label: string, title: string): HTMLElement {
  return h('span', { class: `chip chip-${kind}`, title }, label);
}

function blockList(blocks: readonly number[], max: number): string {
  const shown = blocks.slice(0, max).map((b) => `L${b}`).join(' ');
  return blocks.length > max ? `${shown} +${blocks.length - max}` : shown;
}

/** Chips in reading order: realized, reachable by which probe, blind-selectable, repaired by which block, unreached. */
export function stateChips(row: QuestionRow, compact: boolean): HTMLElement[] {
  const chips: HTMLElement[] = [];
  if (row.flags & Flag.realized) chips.push(chip('realized', 'realized', 'The deployed model answers correctly'));
  if (row.reachableBy.length > 0) {
    const probes = row.reachableBy.join(', ');
    // In the table two probe names already push the later chips out of the cell; the hover names them.
    const label = compact && row.reachableBy.length > 1 ? `reach ×${row.reachableBy.length}` : `reach: ${probes}`;
    chips.push(chip(row.flags & Flag.realized ? 'reach-realized' : 'reach', label, `Reachable: a probe found the correct answer within its budget (${probes})`));
  }
  if (row.blindBy.length > 0) {
    const label = compact ? `blind ×${row.blindBy.length}` : `blind: ${row.blindBy.join(', ')}`;
    chips.push(chip('blind', label, `Answer-blind selection picks a correct answer: ${row.blindBy.join(', ')}`));
  }
  if (row.repairedBy.length > 0) {
    // The table names the first block and counts the rest (the hover and the detail list them all).
    chips.push(chip('repair', `repair: ${blockList(row.repairedBy, compact ? 1 : 64)}`, `Silencing the MLP of block ${row.repairedBy.join(', ')} makes the deployed answer correct`));
  }
  if (row.flags & Flag.unreached) chips.push(chip('unreached', 'unreached', 'Not realized, and no probe found the correct answer'));
  if (row.flags & Flag.notAudited) chips.push(chip('not-audited', 'not audited', `Skipped, nothing generated: ${row.record.skipped?.message ?? ''}`));
  if (row.flags & Flag.notProbed) chips.push(chip('not-audited', 'not probed', 'Not realized; no probe ran on this question (its deployed answer came from a log)'));
  if (!compact && row.damagedBy.length > 0) {
    chips.push(chip('damage', `broken by: ${blockList(row.damagedBy, 64)}`, `Silencing the MLP of these blocks breaks this realized answer`));
  }
  const thinking = (row.flags & Flag.unfinishedThought) !== 0;
  const truncated = (row.flags & Flag.truncated) !== 0;
  // In the table one chip says both: a thought is mostly cut by the token limit.
  if (thinking) chips.push(chip('thinking', compact ? 'thinking…' : 'cut while thinking', `The deployed output's thought never closed${truncated ? ' (it hit the token limit)' : ''}: no answer was read from it`));
  if (truncated && !(compact && thinking)) chips.push(chip('truncated', 'truncated', 'The deployed output hit the token limit'));
  return chips;
}

/** Every state of a question in words, one per chip (the table cell's hover text). */
export function stateWords(row: QuestionRow): string[] {
  return stateChips(row, false).map((c) => `${c.textContent ?? ''}: ${c.title}`);
}
