/**
 * A parquet benchmark's question shown where a text dataset would be opened at its line: a parquet
 * file is not text, so the question's row (its record's `place`: shard file and row) is read and
 * shown as JSON in a read-only document (a content provider's documents cannot be edited or saved).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parquetFileRows, type DatasetRow, type QuestionPlace } from '../../audit/dataset';
import { readRegularBytes } from '../../common';

export const PARQUET_ROW_SCHEME = 'reach-audit-row';

/** The largest parquet file read to show one row (a hub shard is far smaller). */
const MAX_SHARD_BYTES = 2 * 1024 * 1024 * 1024;

const shown = new Map<string, string>();

/** Registers the read-only documents the rows are shown in; disposed with the extension. */
export function registerParquetRowView(): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(PARQUET_ROW_SCHEME, { provideTextDocumentContent: (uri) => shown.get(uri.toString()) ?? '' });
}

/** The text shown for a row: where it is, then the row as JSON. */
export function rowText(place: QuestionPlace, value: unknown): string {
  return `// ${place.file}, row ${place.row} (0-based), read-only: a parquet file is not text\n${JSON.stringify(value, null, 2)}\n`;
}

/** Shows the row of a parquet benchmark (`dataset`: the .parquet file or the hub folder the run read) at `place`. */
export async function showParquetRow(dataset: string, place: QuestionPlace, where: { viewColumn?: vscode.ViewColumn; preserveFocus?: boolean }): Promise<vscode.TextEditor | undefined> {
  const file = /\.parquet$/i.test(dataset) ? dataset : path.join(dataset, place.file);
  if (!fs.existsSync(file)) {
    void vscode.window.showWarningMessage(`Reach Audit: the run's dataset file ${file} no longer exists.`);
    return undefined;
  }
  const rows: DatasetRow[] = [];
  try {
    const bytes = readRegularBytes(file, MAX_SHARD_BYTES);
    await parquetFileRows(file, place.file, 1, bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, rows);
  } catch (err) {
    void vscode.window.showWarningMessage(`Reach Audit: ${(err as Error).message}`);
    return undefined;
  }
  const row = rows[place.row];
  if (!row) {
    void vscode.window.showWarningMessage(`Reach Audit: ${file} has ${rows.length} rows, not row ${place.row}; the file changed since the run read it.`);
    return undefined;
  }
  const uri = vscode.Uri.from({ scheme: PARQUET_ROW_SCHEME, path: `/${path.basename(file)} row ${place.row}.jsonc`, query: file });
  shown.set(uri.toString(), rowText(place, row.value));
  const document = await vscode.workspace.openTextDocument(uri);
  return vscode.window.showTextDocument(document, { viewColumn: where.viewColumn ?? vscode.ViewColumn.One, preserveFocus: where.preserveFocus === true, preview: false });
}
