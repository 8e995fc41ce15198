/**
 * The state of the question under the cursor, in words at the end of its line (faint, as VS Code
 * draws inline hints), in a dataset file with audited questions: one line at a time, so no line
 * grows and nothing moves as the cursor does (a CodeLens would insert a line above). It also sets
 * the `reachAudit.lineAudited` context key, which shows "Show Question in Audit Panel" in the
 * editor's context menu on an audited line.
 */
import * as vscode from 'vscode';
import { throttle } from '../sidebar/throttle';
import { questionLabel } from './questionLabel';
import type { QuestionRecords } from './questionRecords';

export const LINE_AUDITED_CONTEXT = 'reachAudit.lineAudited';

export class CursorLineState implements vscode.Disposable {
  private readonly type = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('editorCodeLens.foreground'), margin: '0 0 0 3em', fontStyle: 'italic' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  private readonly subscriptions: vscode.Disposable[] = [];
  /** What the active editor shows at its cursor's line (0-based), if anything; the suite reads it. */
  shown: { file: string; line: number; text: string } | undefined;
  private audited = false;
  // Cursor moves come in bursts (a held arrow key): draw once they settle a little.
  private readonly schedule = throttle<void>(30, () => void this.refresh());

  constructor(private readonly records: QuestionRecords) {
    this.subscriptions.push(
      records.onDidChange(() => this.schedule()),
      vscode.window.onDidChangeActiveTextEditor(() => this.schedule()),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor === vscode.window.activeTextEditor) this.schedule();
      }),
    );
    this.schedule();
  }

  async refresh(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    let shown: CursorLineState['shown'];
    if (editor && editor.document.uri.scheme === 'file' && /\.jsonl?$/i.test(editor.document.uri.fsPath)) {
      const line = editor.selection.active.line;
      const record = (await this.records.recordsFor(editor.document.uri.fsPath))?.byLine.get(line + 1);
      if (record && editor === vscode.window.activeTextEditor && editor.selection.active.line === line) {
        shown = { file: editor.document.uri.fsPath, line, text: `Reach Audit: ${questionLabel(record).label}` };
        const end = editor.document.lineAt(line).range.end;
        editor.setDecorations(this.type, [{ range: new vscode.Range(end, end), renderOptions: { after: { contentText: shown.text } } }]);
      }
    }
    if (!shown) for (const e of vscode.window.visibleTextEditors) e.setDecorations(this.type, []);
    this.shown = shown;
    if (this.audited !== (shown !== undefined)) {
      this.audited = shown !== undefined;
      await vscode.commands.executeCommand('setContext', LINE_AUDITED_CONTEXT, this.audited);
    }
  }

  dispose(): void {
    this.schedule.cancel();
    for (const d of this.subscriptions) d.dispose();
    this.type.dispose();
  }
}
