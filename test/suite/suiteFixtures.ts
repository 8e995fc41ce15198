/** What several VS Code suite files share: the extension under test, its scratch folders and the fixture runs. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunManifest } from '../../src/contract';
import type { ReachAuditApi } from '../../src/extension/extension';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';

export const EXTENSION_ID = 'reach-audit.reach-audit';
/** out/test/suite → the repository's test/fixtures (the installed .vsix ships none, so never the extension's folder); runs/README.md describes each run. */
export const FIXTURES = path.resolve(__dirname, '../../../test/fixtures');
export const FIXTURE_RUNS = path.join(FIXTURES, 'runs');
export const BASE_RUN = '2026-12-01T09-30-00Z-demo-base';

/** Polls `probe` until it gives a value (not undefined); fails naming `what` after `timeoutMs`. */
export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The workspace folder the launcher opens; every suite file works in it. */
export function workspaceFolder(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the launcher opens a workspace folder');
  return folder.uri.fsPath;
}

/**
 * A suite file's own folder `name` in the workspace, emptied of what an earlier run left there and
 * made again (`create: false` leaves it absent, for a suite whose first write makes it).
 */
export function freshSuiteFolder(name: string, { create = true } = {}): string {
  const root = path.join(workspaceFolder(), name);
  fs.rmSync(root, { recursive: true, force: true });
  if (create) fs.mkdirSync(root, { recursive: true });
  return root;
}

/** A fresh suite folder with a small random-weight Llama in its model/ folder, quick to audit. */
export function freshSuiteFolderWithModel(name: string): { root: string; model: string } {
  const root = freshSuiteFolder(name, { create: false });
  const model = path.join(root, 'model');
  writeRandomModel(model, SMALL_SPECS.llama);
  return { root, model };
}

/** The extension under test as installed (not activated by this), and the bundled demo's folder in it: base, tuned, data. */
export function installedExtension(): { extension: vscode.Extension<ReachAuditApi>; demo: string } {
  const extension = vscode.extensions.getExtension<ReachAuditApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is installed in this VS Code`);
  return { extension, demo: path.join(extension.extensionPath, 'media', 'demo') };
}

/** The extension under test, activated: its API, and where it is installed. */
export async function activatedExtension(): Promise<{ api: ReachAuditApi; extension: vscode.Extension<ReachAuditApi>; demo: string }> {
  const installed = installedExtension();
  return { ...installed, api: await installed.extension.activate() };
}

/** A run folder's manifest.json. */
export function manifestOf(runDir: string): RunManifest {
  return JSON.parse(fs.readFileSync(path.join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
}
