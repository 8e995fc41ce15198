/**
 * Writes package.json's `contributes.configuration` from the audit options table, so every audit
 * option is a VS Code setting and the two cannot drift, and its
 * `capabilities.untrustedWorkspaces.restrictedConfigurations` (the settings an untrusted
 * workspace may not give: model folders, cache, backend and base URLs) from the same place
 * (test/unit/service/optionSettings.test.ts fails until this has been run after an option changes):
 *
 *   npx tsc -p . && node out/tools/writeSettingsSchema.js          (writes package.json)
 *   npx tsc -p . && node out/tools/writeSettingsSchema.js --check  (exit 1 when package.json differs)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { configurationContribution, restrictedSettings } from '../src/service/optionSettings';

const PACKAGE_JSON = path.resolve(__dirname, '..', '..', 'package.json');

interface PackageJson {
  contributes: Record<string, unknown>;
  capabilities: { untrustedWorkspaces: Record<string, unknown> };
}

const text = fs.readFileSync(PACKAGE_JSON, 'utf8');
const pkg = JSON.parse(text) as PackageJson;
const generated = configurationContribution();
const restricted = restrictedSettings();
if (process.argv.includes('--check')) {
  const same = isDeepStrictEqual(pkg.contributes.configuration, generated) && isDeepStrictEqual(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations, restricted);
  console.log(same ? 'package.json settings match the options table' : 'package.json settings differ from the options table: run node out/tools/writeSettingsSchema.js');
  process.exit(same ? 0 : 1);
}
pkg.contributes.configuration = generated;
pkg.capabilities.untrustedWorkspaces.restrictedConfigurations = restricted;
// The file's own layout (2 spaces, final newline), so the diff shows only the settings.
fs.writeFileSync(PACKAGE_JSON, `${JSON.stringify(pkg, null, 2)}\n`);
console.log(`wrote ${generated.length} setting groups and ${restricted.length} restricted settings to ${path.relative(process.cwd(), PACKAGE_JSON) || PACKAGE_JSON}`);
