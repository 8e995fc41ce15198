/**
 * Walkthrough defect 7: the Trajectory tab, Show Training Trajectory and the welcome text sent the
 * user to `reach-audit`, which an installed .vsix does not put on PATH. The extension writes a
 * launcher for its bundled CLI and puts its folder on the PATH of VS Code's terminals; the
 * launcher really runs the CLI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SHIM_NAMES, shimText, writeCliShim } from '../../../src/extension/commands/cliShim';

test('the launcher runs the bundled CLI with its arguments, from a PATH lookup', { skip: process.platform === 'win32' }, () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-shim-'));
  const cli = path.join(root, "ext dir's", 'dist', 'cli.js');
  fs.mkdirSync(path.dirname(cli), { recursive: true });
  fs.writeFileSync(cli, 'console.log(JSON.stringify(process.argv.slice(2)));\n');
  const dir = writeCliShim(path.join(root, 'bin'), process.execPath, cli);
  const out = execFileSync(SHIM_NAMES.posix, ['trajectory', '--model', 'a b'], { env: { ...process.env, PATH: `${dir}${path.delimiter}${process.env.PATH ?? ''}` }, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), ['trajectory', '--model', 'a b']);
  // Written again (a new extension version): refreshed in place.
  writeCliShim(dir, process.execPath, cli);
  assert.ok(fs.statSync(path.join(dir, SHIM_NAMES.posix)).mode & 0o100);
});

test('the Windows launcher runs Node as Node on the CLI with every argument', () => {
  const text = shimText('C:\\VS Code\\Code.exe', 'C:\\ext\\dist\\cli.js').windows;
  assert.match(text, /set ELECTRON_RUN_AS_NODE=1\r\n"C:\\VS Code\\Code\.exe" "C:\\ext\\dist\\cli\.js" %\*\r\n$/);
});
