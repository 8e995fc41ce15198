/**
 * Where a question's dataset line opens from the audit panel: never in the panel's own editor
 * group (it would replace the panel, and nobody could click through questions), but where that
 * dataset is already shown, else in the group beside the panel. Pure: columns are VS Code's
 * 1-based editor-group numbers.
 */

/** The group a dataset should open in; `undefined` when the panel's column is unknown (then "beside"). */
export function revealColumn(panelColumn: number | undefined, datasetColumns: readonly number[]): number | undefined {
  const elsewhere = datasetColumns.filter((c) => c !== panelColumn);
  if (elsewhere.length > 0) return Math.min(...elsewhere);
  if (panelColumn === undefined) return undefined;
  // The group right of the panel (VS Code creates it when it does not exist).
  return panelColumn + 1;
}
