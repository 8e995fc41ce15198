/**
 * The suite's reading of the dataset editor's per-line state: the Reach Audit hover on a line
 * (through VS Code's own hover command, as the editor asks for it), and the CodeLenses the
 * extension contributes (none: they doubled every line's height).
 */
import * as vscode from 'vscode';

/** The Reach Audit hover's text on 0-based `line` of `uri`, undefined when the line has none. */
export async function reachAuditHover(uri: vscode.Uri, line: number): Promise<string | undefined> {
  const hovers = (await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, new vscode.Position(line, 1))) ?? [];
  const texts = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value)));
  // Plain text goes in with its spaces as &nbsp; (MarkdownString.appendText): read it back as spaces.
  return texts.find((t) => t.startsWith('**Reach Audit:**'))?.replace(/&nbsp;/g, ' ');
}

/** CodeLenses whose command is one of the extension's. */
export async function reachAuditLenses(uri: vscode.Uri): Promise<vscode.CodeLens[]> {
  const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
  return lenses.filter((l) => l.command?.command.startsWith('reachAudit.'));
}
