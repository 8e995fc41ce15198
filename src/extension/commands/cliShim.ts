/**
 * A `reach-audit` command for VS Code's terminals. An installed .vsix does not put the CLI on the
 * PATH, yet the Trajectory tab, Show Training Trajectory and the Runs view's welcome point at
 * `reach-audit …`; the extension writes a small launcher for its own bundled CLI (dist/cli.js,
 * run by the same Node the engine child uses) into its storage folder, and puts that folder first
 * on the PATH of the terminals it opens or that VS Code opens afterwards. No vscode import.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The launcher's file names: a POSIX shell script and a Windows batch file. */
export const SHIM_NAMES = { posix: 'reach-audit', windows: 'reach-audit.cmd' } as const;

/** The launchers' text: `execPath` run as plain Node (it is Electron in desktop VS Code) on `cliPath`. */
export function shimText(execPath: string, cliPath: string): { posix: string; windows: string } {
  const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return {
    posix: `#!/bin/sh\n# Written by the Reach Audit extension: its bundled reach-audit command line.\nELECTRON_RUN_AS_NODE=1 exec ${sh(execPath)} ${sh(cliPath)} "$@"\n`,
    windows: `@echo off\r\nrem Written by the Reach Audit extension: its bundled reach-audit command line.\r\nset ELECTRON_RUN_AS_NODE=1\r\n"${execPath}" "${cliPath}" %*\r\n`,
  };
}

/** Writes (or refreshes) the launchers into `dir`; returns `dir`, the folder to put on the PATH. */
export function writeCliShim(dir: string, execPath: string, cliPath: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const text = shimText(execPath, cliPath);
  const posix = path.join(dir, SHIM_NAMES.posix);
  fs.writeFileSync(posix, text.posix, { mode: 0o755 });
  fs.chmodSync(posix, 0o755);
  fs.writeFileSync(path.join(dir, SHIM_NAMES.windows), text.windows);
  return dir;
}

/** How the hints name the command: `reach-audit` in a VS Code terminal. */
export const CLI_HINT = 'in a VS Code terminal (Reach Audit: Open Terminal with reach-audit; the extension puts its bundled reach-audit on the PATH of VS Code terminals)';
