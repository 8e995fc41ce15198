/**
 * The suite's side of the launcher's page probes (test/vscode/pageProbes.ts): ask with one log
 * line, wait for the answer file in the workspace. Under a launcher without probes (the
 * @vscode/test-electron one) `pageProbesAvailable` is false and the tests that need them skip.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { PAGE_PROBE_FOLDER, PAGE_PROBE_PREFIX, type PageProbeRequest, type PanelDom } from '../vscode/pageProbes';

export const pageProbesAvailable = process.env.REACH_AUDIT_PAGE_PROBES === '1';

let counter = 0;

async function ask<T>(kind: PageProbeRequest['kind'], args: Record<string, unknown>, timeoutMs = 60_000): Promise<T> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!folder) throw new Error('page probes need the workspace folder the launcher opened');
  const id = `${kind}-${process.pid}-${++counter}`;
  const file = path.join(folder, PAGE_PROBE_FOLDER, `${id}.json`);
  rmSync(file, { force: true });
  const request: PageProbeRequest = { id, kind, args };
  console.log(PAGE_PROBE_PREFIX + JSON.stringify(request));
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`the launcher did not answer the ${kind} page probe within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const reply = JSON.parse(readFileSync(file, 'utf8')) as { result?: T; error?: string };
  if (reply.error !== undefined) throw new Error(`page probe ${kind}: ${reply.error}`);
  return reply.result as T;
}

/** The audit panel's rendered DOM, once it shows question `id` whose text is `text` in the detail pane. */
export function panelDom(id: string, text: string): Promise<PanelDom> {
  return ask<PanelDom>('panelDom', { id, text });
}

/** Saves the window and the audit panel (or the webview whose page has `frame`) as `<name>-window.png` / `<name>-panel.png`. */
export function screenshot(name: string, frame?: string): Promise<{ files: string[] }> {
  return ask<{ files: string[] }>('screenshot', { name, ...(frame ? { frame } : {}) });
}

/** Clicks the panel's button or tab labelled `text`. */
export async function panelClick(text: string, frame?: string): Promise<void> {
  await ask<{ clicked: string }>('panelClick', { text, ...(frame ? { frame } : {}) });
}

/**
 * Page-side function source `fn` applied to `arg` in the audit panel's frame; the launcher retries
 * it until it answers something other than null (so `fn` can wait for the page by answering null).
 */
export function panelEval<T>(fn: string, arg: unknown = null, timeoutMs = 20_000, frame?: string): Promise<T> {
  return ask<T>('panelEval', { fn, arg, timeoutMs, ...(frame ? { frame } : {}) }, timeoutMs + 30_000);
}

/** As panelEval, in the workbench page (views, the editor and its gutter). */
export function workbenchEval<T>(fn: string, arg: unknown = null, timeoutMs = 20_000): Promise<T> {
  return ask<T>('workbenchEval', { fn, arg, timeoutMs }, timeoutMs + 30_000);
}

/** As panelEval, in the webview (a side view) whose page has an element matching `selector`. */
export function viewEval<T>(fn: string, selector: string, arg: unknown = null, timeoutMs = 20_000): Promise<T> {
  return ask<T>('viewEval', { fn, arg, selector, timeoutMs }, timeoutMs + 30_000);
}

/** Drags the panel element `selector` (a column's resize edge) by `dx` px with the mouse. */
export async function panelDrag(selector: string, dx: number): Promise<void> {
  await ask<{ dragged: number }>('panelDrag', { selector, dx });
}

/** Clicks the workbench element `selector` whose text contains `text` (a welcome-view button). */
export async function workbenchClick(selector: string, text: string): Promise<{ clicked: string; matches: number; where: string }> {
  return ask<{ clicked: string; matches: number; where: string }>('workbenchClick', { selector, text });
}

/** Types the text of `file` into the open quick input and presses Enter (the text stays out of every log line). */
export function quickInputType(file: string): Promise<{ typed: number; password: boolean }> {
  return ask<{ typed: number; password: boolean }>('quickInputType', { file });
}

/**
 * Types `text` into the quick input titled `title` once it shows (under load the next picker comes
 * late) and presses Enter; the text goes by a file of its own, so it stays out of every log line.
 */
async function answerPicker(title: string, text: string): Promise<void> {
  await workbenchEval<boolean>(`(t) => { const w = document.querySelector('.quick-input-widget'); return w && w.offsetParent !== null && (w.querySelector('.quick-input-title')?.textContent ?? '').includes(t) ? true : null; }`, title, 60_000);
  const folder = mkdtempSync(path.join(os.tmpdir(), 'reach-audit-picks-'));
  try {
    const file = path.join(folder, 'answer.txt');
    writeFileSync(file, text);
    await quickInputType(file);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Starts a command that asks through pickers and answers them in order: `answers` are [title, text]
 * pairs for answerPicker. A picker closed by something else (an editor or panel an earlier test
 * opened late takes the focus) ends the command as dismissed before its pickers are answered: that
 * is logged and the command is started once more; a second dismissal fails with its outcome.
 */
export async function commandThroughPickers<T extends { how: string; message?: string }>(start: () => Thenable<T>, answers: ReadonlyArray<readonly [string, string]>): Promise<T> {
  let answering: Promise<void> = Promise.resolve();
  const once = async (): Promise<T> => {
    const running = Promise.resolve(start());
    const endedEarly = running.then((o) => Promise.reject(new Error(`the command ended (${o.how}: ${o.message ?? ''}) before its pickers were answered`)));
    endedEarly.catch(() => undefined);
    for (const [title, text] of answers) {
      answering = answerPicker(title, text);
      await Promise.race([answering, endedEarly]);
    }
    return running;
  };
  try {
    return await once();
  } catch (err) {
    if (!/ended \(dismissed/.test((err as Error).message)) throw err;
    console.log(`[pickers] ${(err as Error).message}; starting it again`);
    // The answer under way must not type into the next command's first picker.
    await answering.catch(() => undefined);
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    return once();
  }
}

/** Resizes the window's page to `width` × `height` (CSS px); the launcher opens it at 1600 × 1000. */
export function setViewport(width: number, height: number): Promise<{ width: number; height: number }> {
  return ask<{ width: number; height: number }>('viewport', { width, height });
}
