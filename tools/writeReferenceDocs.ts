/**
 * Writes the generated references under docs/reference/ (`npm run docs`):
 *   cli.md         each command's --help, from the commands themselves
 *   settings.md    package.json's contributes.configuration
 *   run-format.md  the run files' schemas and the contract's doc comments
 * `--check` writes nothing and exits 1 naming each file that differs from a fresh generation
 * (test/unit/tools/referenceDocs.test.ts does the same).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generatedReferences, REGENERATE, REPOSITORY_ROOT } from './referenceDocs/generatedReferences';

async function writeAll(check: boolean): Promise<number> {
  let stale = 0;
  for (const [file, text] of await generatedReferences()) {
    const target = path.join(REPOSITORY_ROOT, file);
    const old = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined;
    if (old === text) continue;
    if (check) {
      console.log(`${file} differs from a fresh generation: run ${REGENERATE}`);
      stale++;
    } else {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, text);
      console.log(`wrote ${file}`);
    }
  }
  return stale === 0 ? 0 : 1;
}

writeAll(process.argv.includes('--check')).then((code) => { process.exitCode = code; });
