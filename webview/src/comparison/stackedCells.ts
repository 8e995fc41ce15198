/**
 * A comparison table that reads in a narrow panel: each body cell carries its column's name
 * (data-label), so the stylesheet can lay a row out as a short paragraph — the row's name, then
 * each value after its column's name — when the Comparison tab is narrower than the table
 * (panel.css, `@container compare`). Text only: the names are copied as attribute text.
 */
export function stackCells(table: HTMLTableElement): void {
  const names = Array.from(table.tHead?.rows[0]?.cells ?? [], (cell) => cell.textContent ?? '');
  for (const body of Array.from(table.tBodies)) {
    for (const row of Array.from(body.rows)) {
      Array.from(row.cells).forEach((cell, i) => {
        const name = names[i];
        // A row's own name (a measure, a checkpoint) reads alone; a number naming the row (k) keeps its column's name.
        const rowName = cell.tagName === 'TH' && !cell.classList.contains('num');
        if (name && !rowName) cell.dataset.label = name;
      });
    }
  }
  table.classList.add('stacked');
}
