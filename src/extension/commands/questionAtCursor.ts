/**
 * Which question an editor command is about: the dataset file and 1-based line given as arguments
 * (the suite), the file a context-menu click passed, or the active editor's cursor.
 */
import * as vscode from 'vscode';
import { isDatasetFile } from './auditChoices';

export interface QuestionPlace {
  file?: string;
  line?: number;
}

/** An argument object a command was called with (not a Uri, an array or nothing). */
export function isArgObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !(value instanceof vscode.Uri) && !Array.isArray(value);
}

/** The question's file and line, or undefined after telling the user what is needed. */
export function questionAtCursor(arg: unknown, given: QuestionPlace): { file: string; line: number } | undefined {
  const editor = vscode.window.activeTextEditor;
  const file = given.file ?? (arg instanceof vscode.Uri ? arg.fsPath : editor?.document.uri.fsPath);
  if (!file || !isDatasetFile(vscode.Uri.file(file))) {
    void vscode.window.showErrorMessage('Reach Audit: put the cursor on a question in a .jsonl or .json dataset file.');
    return undefined;
  }
  const line = given.line ?? (editor && editor.document.uri.fsPath === file ? editor.selection.active.line + 1 : undefined);
  return line ? { file, line } : undefined;
}
