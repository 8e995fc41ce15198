/**
 * Runs the same VS Code suite (out/test/suite/index.js) in desktop VS Code through
 * @vscode/test-electron, for machines that can download VS Code (this one cannot: use
 * runInCodeServer.ts there). REACH_AUDIT_VSCODE_VERSION picks the version (default: stable);
 * REACH_AUDIT_VSCODE_EXECUTABLE runs an installed VS Code instead of downloading one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

async function main(): Promise<number> {
  // The suite writes runs into the opened folder, so each run gets a fresh one.
  const workspace = mkdtempSync(path.join(os.tmpdir(), 'reach-audit-electron-'));
  try {
    return await runTests({
      extensionDevelopmentPath: REPO_ROOT,
      extensionTestsPath: path.join(REPO_ROOT, 'out', 'test', 'suite', 'index.js'),
      extensionTestsEnv: { REACH_AUDIT_EXPECT_EXTENSION_ROOT: REPO_ROOT },
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
      ...(process.env.REACH_AUDIT_VSCODE_EXECUTABLE
        ? { vscodeExecutablePath: process.env.REACH_AUDIT_VSCODE_EXECUTABLE }
        : { version: process.env.REACH_AUDIT_VSCODE_VERSION || 'stable' }),
    });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`[electron] FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
