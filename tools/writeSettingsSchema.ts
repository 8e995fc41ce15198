/**
 * Writes package.json's `contributes.configuration` from the audit options table, so every audit
 * option is a VS Code setting and the two cannot drift (test/unit/service/optionSettings.test.ts
 * fails until this has been run after an option changes):
 *
 *   npx tsc -p . && node out/tools/writeSettingsSchema.js          (writes package.json)
 *   npx tsc -p . && node out/tools/writeSettingsSchema.js --check  (exit 1 when package.json differs)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { configurationContribution } from '../src/service/optionSettings';

const PACKAGE_JSON = path.resolve(__dirname, '..', '..', 'package.json');

const text = fs.readFileSync(PACKAGE_JSON, 'utf8');
const pkg = JSON.parse(text) as { contributes: Record<string, unknown> };
const generated = configurationContribution();
if (process.argv.includes('--check')) {
  const same = isDeepStrictEqual(pkg.contributes.configuration, generated);
  console.log(same ? 'package.json settings match the options table' : 'package.json settings differ from the options table: run node out/tools/writeSettingsSchema.js');
  process.exit(same ? 0 : 1);
}
pkg.contributes.configuration = generated;
// The file's own layout (2 spaces, final newline), so the diff shows only the settings.
fs.writeFileSync(PACKAGE_JSON, `${JSON.stringify(pkg, null, 2)}\n`);
console.log(`wrote ${generated.length} setting groups to ${path.relative(process.cwd(), PACKAGE_JSON) || PACKAGE_JSON}`);
