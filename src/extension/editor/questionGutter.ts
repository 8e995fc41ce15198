/**
 * A gutter mark on each audited question's line, in its state's colour (realized green, reachable
 * blue, repaired orange, unreached red: the panel's chip colours), and the same colour in the
 * overview ruler, so the state is visible at a glance (the hover on the line keeps the numbers). Gutter icons are pictures, so they carry the default themes' values of
 * VS Code's chart colours (a light and a dark one); the overview ruler takes the live theme colour.
 * Reads the same records as the hover and the cursor line's state, so all three agree.
 */
import * as vscode from 'vscode';
import { throttle } from '../sidebar/throttle';
import type { QuestionRecords } from './questionRecords';
import { questionLabel, type QuestionStateName } from './questionLabel';

const STATES: readonly QuestionStateName[] = ['realized', 'reachable', 'repaired', 'unreached'];
/** The theme colour of each state (VS Code's chart colours, as the panel's chips use). */
export const STATE_THEME_COLOUR: Record<QuestionStateName, string> = {
  realized: 'charts.green',
  reachable: 'charts.blue',
  repaired: 'charts.orange',
  unreached: 'charts.red',
};

export class QuestionGutter implements vscode.Disposable {
  private readonly types: Record<QuestionStateName, vscode.TextEditorDecorationType>;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** The lines (0-based) decorated per state in each editor's document, as last applied; the suite reads it. */
  readonly applied = new Map<string, Record<QuestionStateName, number[]>>();
  private readonly schedule = throttle<void>(50, () => void this.refresh());

  constructor(extensionUri: vscode.Uri, private readonly records: QuestionRecords) {
    const icon = (state: QuestionStateName, kind: 'light' | 'dark') => vscode.Uri.joinPath(extensionUri, 'media', `gutter-${state}-${kind}.svg`);
    const make = (state: QuestionStateName) =>
      vscode.window.createTextEditorDecorationType({
        light: { gutterIconPath: icon(state, 'light') },
        dark: { gutterIconPath: icon(state, 'dark') },
        gutterIconSize: 'contain',
        overviewRulerColor: new vscode.ThemeColor(STATE_THEME_COLOUR[state]),
        overviewRulerLane: vscode.OverviewRulerLane.Left,
        rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
      });
    this.types = { realized: make('realized'), reachable: make('reachable'), repaired: make('repaired'), unreached: make('unreached') };
    this.subscriptions.push(
      records.onDidChange(() => this.schedule()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.schedule()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (vscode.window.visibleTextEditors.some((ed) => ed.document === e.document)) this.schedule();
      }),
    );
    this.schedule();
  }

  /** Decorates every visible dataset editor from the audited records of its file. */
  async refresh(): Promise<void> {
    for (const editor of vscode.window.visibleTextEditors) await this.decorate(editor);
  }

  private async decorate(editor: vscode.TextEditor): Promise<void> {
    const document = editor.document;
    if (document.uri.scheme !== 'file' || !/\.jsonl?$/i.test(document.uri.fsPath)) return;
    const entry = await this.records.recordsFor(document.uri.fsPath);
    const lines: Record<QuestionStateName, number[]> = { realized: [], reachable: [], repaired: [], unreached: [] };
    for (const [line, record] of entry?.byLine ?? []) {
      if (line < 1 || line > document.lineCount) continue;
      lines[questionLabel(record).name].push(line - 1);
    }
    for (const state of STATES) {
      lines[state].sort((a, b) => a - b);
      editor.setDecorations(this.types[state], lines[state].map((l) => new vscode.Range(l, 0, l, 0)));
    }
    this.applied.set(document.uri.fsPath, lines);
  }

  dispose(): void {
    this.schedule.cancel();
    for (const d of this.subscriptions) d.dispose();
    for (const t of Object.values(this.types)) t.dispose();
  }
}
