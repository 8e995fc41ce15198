/** What several VS Code suite files share: the extension under test and the fixture runs. */
import * as path from 'node:path';

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
