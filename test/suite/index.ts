/**
 * Entry of the VS Code test suite, loaded inside a real VS Code extension host through
 * `extensionTestsPath` (by test/vscode/runInCodeServer.ts or test/vscode/runInElectron.ts).
 * Runs the *.test.js files beside this file with mocha and prints the counts from inside VS Code;
 * a rejected promise is how the host learns the suite failed (exit code 1).
 *
 * REACH_AUDIT_SUITE=untrusted (the launcher's --untrusted pass, a window whose folder is not
 * trusted) runs only untrusted.test.js; otherwise every other file runs.
 * REACH_AUDIT_SUITE_FILES=a.test.js,b.test.js (passed through by the launcher) runs only those
 * files, for working on one part of the suite; the full run sets nothing.
 */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

const UNTRUSTED_FILE = 'untrusted.test.js';
const FIRST_FILE = 'runsView.test.js';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 30_000, reporter: 'spec' });
  const untrusted = process.env.REACH_AUDIT_SUITE === 'untrusted';
  const only = process.env.REACH_AUDIT_SUITE_FILES?.split(',').map((f) => f.trim()).filter(Boolean);
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js'))
    .filter((f) => (f === UNTRUSTED_FILE) === untrusted)
    .filter((f) => !only || only.includes(f))
    // The Runs view's file first: its first test checks that nothing activated the extension
    // before its view opened, which any other file's command would.
    .sort((a, b) => Number(b === FIRST_FILE) - Number(a === FIRST_FILE) || a.localeCompare(b));
  for (const file of files) mocha.addFile(path.join(__dirname, file));

  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run(() => {
        const passed = runner.stats?.passes ?? 0;
        const failed = runner.stats?.failures ?? 0;
        // The closing line CI reads: counted inside VS Code, printed through its log forwarding.
        console.log(`vscode-suite: ${passed} passed, ${failed} failed`);
        if (failed > 0) reject(new Error(`${failed} VS Code test(s) failed`));
        else if (passed === 0) reject(new Error(`no VS Code tests ran (looked for *.test.js in ${__dirname})`));
        else resolve();
      });
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}
