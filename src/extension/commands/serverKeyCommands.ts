/**
 * The API key of the servers an audit runs on (`reachAudit.backend` openai): Set Server API Key…
 * asks for it in a password box and keeps it in VS Code's secret storage; Clear Server API Key
 * removes it. The engine child gets it in an environment variable that the request names
 * (src/service/serverKey.ts), so it is never in a setting, the log, a manifest or the webview.
 */
import * as vscode from 'vscode';

/** The secret storage entry (the extension's own; other extensions cannot read it). */
export const SERVER_KEY_SECRET = 'reachAudit.serverApiKey';

export const SERVER_KEY_COMMANDS = {
  set: 'reachAudit.setServerApiKey',
  clear: 'reachAudit.clearServerApiKey',
} as const;

/** The stored key, undefined when none is. */
export async function storedServerKey(secrets: vscode.SecretStorage): Promise<string | undefined> {
  const key = await secrets.get(SERVER_KEY_SECRET);
  return key ? key : undefined;
}

export function registerServerKeyCommands(secrets: vscode.SecretStorage, output: vscode.OutputChannel): vscode.Disposable[] {
  /** Resolves true once a key is stored; false when the box was dismissed. */
  async function setKey(): Promise<boolean> {
    const had = (await storedServerKey(secrets)) !== undefined;
    const typed = await vscode.window.showInputBox({
      title: 'Reach Audit: Server API Key',
      prompt: `Sent as "Authorization: Bearer …" to the servers in reachAudit.baseUrls when reachAudit.backend is openai. Kept in VS Code's secret storage${had ? '; replaces the stored key' : ''}.`,
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() === '' ? 'Type the key (Reach Audit: Clear Server API Key removes a stored one).' : /\s/.test(v.trim()) ? 'A key has no spaces or line breaks.' : undefined),
    });
    if (typed === undefined) return false;
    await secrets.store(SERVER_KEY_SECRET, typed.trim());
    output.appendLine(`[extension] server API key ${had ? 'replaced' : 'stored'} in VS Code's secret storage`);
    void vscode.window.showInformationMessage('Reach Audit: server API key stored in VS Code\'s secret storage. Audits on servers (reachAudit.backend openai) send it.');
    return true;
  }

  async function clearKey(): Promise<boolean> {
    const had = (await storedServerKey(secrets)) !== undefined;
    await secrets.delete(SERVER_KEY_SECRET);
    output.appendLine(`[extension] server API key ${had ? 'removed from' : 'was not in'} VS Code's secret storage`);
    void vscode.window.showInformationMessage(had ? 'Reach Audit: server API key removed.' : 'Reach Audit: no server API key was stored.');
    return had;
  }

  return [vscode.commands.registerCommand(SERVER_KEY_COMMANDS.set, setKey), vscode.commands.registerCommand(SERVER_KEY_COMMANDS.clear, clearKey)];
}
