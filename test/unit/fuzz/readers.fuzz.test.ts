/**
 * The fuzz pass over the untrusted readers (properties in readerProperties.ts), bounded in time:
 * each property runs in a worker for at least 100 inputs and REACH_AUDIT_FUZZ_MS (default 2000 ms),
 * and an input that has not returned after REACH_AUDIT_FUZZ_INPUT_MS (default 5000 ms) fails the
 * test, naming it. Every run prints its seed and count of inputs; REACH_AUDIT_FUZZ_SEED=<seed>
 * replays a run.
 *   REACH_AUDIT_FUZZ_MS=60000 node --test out/test/unit/fuzz/readers.fuzz.test.js
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { MIN_RUNS, READER_PROPERTIES, type ReaderPropertyName } from './readerProperties';
import { fuzzInWorker } from './fuzzWatchdog';

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name}=${raw}: expected a whole number`);
  return value;
}

const FUZZ_MS = setting('REACH_AUDIT_FUZZ_MS', 2000);
const INPUT_MS = setting('REACH_AUDIT_FUZZ_INPUT_MS', 5000);
const SEED = process.env.REACH_AUDIT_FUZZ_SEED;

describe('fuzz: untrusted readers', () => {
  for (const name of Object.keys(READER_PROPERTIES) as ReaderPropertyName[]) {
    it(`${name}: bad input is a clear error, never a crash or a hang`, async (t) => {
      const seed = SEED !== undefined ? setting('REACH_AUDIT_FUZZ_SEED', 0) : (Date.now() ^ (Math.random() * 2 ** 31)) >>> 1;
      const started = Date.now();
      const out = await fuzzInWorker(name, { seed, ms: FUZZ_MS, inputMs: INPUT_MS });
      const verdict = out.hung ? 'HUNG' : out.failed ? 'FAILED' : 'no failure';
      t.diagnostic(`${name}: ${out.numRuns} inputs in ${Date.now() - started} ms, seed ${seed}, ${verdict}`);
      const replay = `replay: REACH_AUDIT_FUZZ_SEED=${seed} node --test --test-name-pattern="${name}" out/test/unit/fuzz/readers.fuzz.test.js`;
      if (out.hung) assert.fail(`${name}: input ${out.hung.afterInputs + 1} did not return within ${INPUT_MS} ms: ${out.hung.input}\n${replay}`);
      if (out.failed) assert.fail(`${name}: ${out.report ?? 'failed'}\n${replay}`);
      assert.ok(out.numRuns >= MIN_RUNS, `${name}: only ${out.numRuns} inputs ran`);
    });
  }
});
