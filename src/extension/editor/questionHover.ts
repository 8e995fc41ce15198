/**
 * The hover on an audited question's line of a dataset file: its state from the newest run, the
 * numbers behind it (gold and deployed answer, each probe's attempts, the repair scan), and a link
 * that opens it in the audit panel. It replaces the CodeLens that stood above every line (each
 * added a line of its own, doubling a JSONL file's height); the gutter mark shows the state at a
 * glance, the cursor's line says it in words (cursorLineState.ts). Answers are model and dataset
 * text: they go in as plain text, never as Markdown.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { QuestionRecord } from '../../contract';
import { probeTallies, questionLabel } from './questionLabel';
import type { QuestionRecords } from './questionRecords';

export const SHOW_QUESTION_COMMAND = 'reachAudit.showQuestion';

/** The hover's lines after its title, as plain text. */
export function questionDetails(record: QuestionRecord, runName: string): string[] {
  const state = questionLabel(record);
  return [
    `Question ${String(record.id)} · run ${runName}`,
    `Gold ${record.gold ?? '—'} · deployed answer ${record.realized?.answer ?? 'none'} (${record.realized?.correct ? 'correct' : 'wrong'})`,
    ...probeTallies(record),
    ...(record.repair ? [`Failure set: ${record.repair.inFailureSet ? 'yes' : 'no'}${state.repairedBy.length ? ` · repaired by silencing block ${state.repairedBy.join(', ')}` : ''}`] : []),
  ];
}

export class QuestionHoverProvider implements vscode.HoverProvider {
  constructor(private readonly records: QuestionRecords) {}

  async provideHover(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
    if (document.uri.scheme !== 'file') return undefined;
    const entry = await this.records.recordsFor(document.uri.fsPath);
    const record = entry?.byLine.get(position.line + 1);
    if (!entry || !record) return undefined;
    const state = questionLabel(record);
    const text = new vscode.MarkdownString(undefined, true);
    // Only our own command may run from this hover's links.
    text.isTrusted = { enabledCommands: [SHOW_QUESTION_COMMAND] };
    text.appendMarkdown('**Reach Audit:** ');
    text.appendText(state.label);
    for (const line of questionDetails(record, path.basename(entry.runDir))) {
      text.appendMarkdown('  \n');
      text.appendText(line);
    }
    const args = encodeURIComponent(JSON.stringify([{ runDir: entry.runDir, id: record.id }]));
    text.appendMarkdown(`\n\n[$(open-preview) Show in Audit Panel](command:${SHOW_QUESTION_COMMAND}?${args} "Open this question in the audit panel")`);
    const line = document.lineAt(position.line).range;
    return new vscode.Hover(text, line);
  }
}
