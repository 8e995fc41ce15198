/**
 * `reach-audit --version` prints the package's version (issue 40 point 10): it used to be taken for
 * an unknown command and answered with the usage.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { version } from '../../../package.json';
import { main } from '../../../src/cli/main';

async function stdoutOf(argv: string[]): Promise<{ code: number; text: string }> {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => { chunks.push(String(chunk)); return true; }) as typeof process.stdout.write;
  try {
    const code = await main(argv);
    return { code, text: chunks.join('') };
  } finally {
    process.stdout.write = write;
  }
}

describe('reach-audit --version', () => {
  it('prints the version, not the usage, and exits 0', async () => {
    for (const flag of ['--version', '-V']) {
      const { code, text } = await stdoutOf([flag]);
      assert.equal(code, 0);
      assert.equal(text, `reach-audit ${version}\n`);
    }
  });
});
