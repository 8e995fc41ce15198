/** Every generated reference: its path in the repository and its text, freshly generated. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cliReference } from './cliReference';
import { runFormatReference } from './runFormatReference';
import { settingsReference, type ContributedConfiguration } from './settingsReference';

/** out/tools/referenceDocs → the repository. */
export const REPOSITORY_ROOT = path.resolve(__dirname, '..', '..', '..');

/** The command that regenerates them, named by the check that finds one stale. */
export const REGENERATE = 'npm run docs';

export async function generatedReferences(): Promise<Map<string, string>> {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPOSITORY_ROOT, 'package.json'), 'utf8')) as ContributedConfiguration;
  return new Map([
    ['docs/reference/cli.md', await cliReference()],
    ['docs/reference/settings.md', settingsReference(pkg)],
    ['docs/reference/run-format.md', runFormatReference()],
  ]);
}
