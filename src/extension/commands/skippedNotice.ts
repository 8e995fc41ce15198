/**
 * The notification at the end of a run that skipped questions: how many of them were audited and
 * why the rest were not (prompt + max new tokens longer than the model's context, or the prompt's
 * own few-shot examples), with what would audit them. Without it a run whose every prompt overflows
 * the context finishes in seconds and reads as a result with n = 0.
 */
import * as vscode from 'vscode';
import { contextSkipHint, auditedCount, skippedText, type QuestionRecord } from '../../contract';

/** The notification's text, undefined when no question was skipped. */
export function skippedNoticeText(records: readonly QuestionRecord[], label?: string): string | undefined {
  const counted = auditedCount(records);
  const text = skippedText(counted);
  if (!text) return undefined;
  return `Reach Audit: ${label ? `${label}: ` : ''}${text}.${counted.context ? ` ${contextSkipHint(counted.context)}` : ''}`;
}

const OPEN_SETTINGS = 'Open Settings';

/** Shows the notification when `records` skipped questions; its text, or undefined when none was. */
export function showSkippedNotice(records: readonly QuestionRecord[], output: vscode.OutputChannel, label?: string): string | undefined {
  const text = skippedNoticeText(records, label);
  if (!text) return undefined;
  output.appendLine(`[extension] ${text}`);
  void vscode.window.showWarningMessage(text, OPEN_SETTINGS, 'Show Log').then((a) => {
    if (a === OPEN_SETTINGS) void vscode.commands.executeCommand('workbench.action.openSettings', '@ext:reach-audit.reach-audit');
    else if (a) output.show();
  });
  return text;
}
