/**
 * Walkthrough defect 7: the Trajectory tab, Show Training Trajectory and the Runs view's welcome
 * send the user to `reach-audit …`, which an installed .vsix puts on no PATH. In the real VS Code:
 * Open Terminal with reach-audit opens a terminal whose PATH starts with the extension's launcher
 * folder, and that launcher runs the bundled CLI (`reach-audit --help` exits 0 and prints the usage).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activatedExtension } from './suiteFixtures';

suite('reach-audit on the PATH of VS Code terminals', function () {
  this.timeout(60_000);

  test('Open Terminal with reach-audit: its PATH finds the bundled CLI, which runs', async () => {
    await activatedExtension();
    const terminal = await vscode.commands.executeCommand<vscode.Terminal>('reachAudit.openCliTerminal');
    try {
      assert.ok(terminal, 'the command opens a terminal');
      const env = (terminal.creationOptions as vscode.TerminalOptions).env ?? {};
      const folder = (env.PATH ?? '').split(path.delimiter)[0];
      assert.ok(folder && fs.existsSync(path.join(folder, process.platform === 'win32' ? 'reach-audit.cmd' : 'reach-audit')), `launcher folder first on PATH: ${folder}`);
      if (process.platform === 'win32') return;
      const usage = execFileSync('reach-audit', ['--help'], { env: { ...process.env, PATH: env.PATH ?? '' }, encoding: 'utf8', timeout: 30_000 });
      assert.match(usage, /trajectory/, usage.slice(0, 400));
    } finally {
      terminal?.dispose();
    }
  });
});
