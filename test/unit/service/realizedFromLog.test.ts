/**
 * `--realized-from`: where a logged prompt first differs from the deployment's, and how the
 * manifest's realizedFrom is held to on resume (the log's bytes) and in a comparison (only whether
 * outputs were read, and from which harness: base and tuned each read their own log).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstDifference } from '../../../src/service/realizedFromLog';
import { comparisonMismatches, manifestMismatches } from '../../../src/audit/store/manifest';
import type { RealizedFrom, RunManifest } from '../../../src/contract';
import { manifestFor, settingsFor } from '../audit/fixtures';

const manifestOf = (realizedFrom?: RealizedFrom): RunManifest => manifestFor(settingsFor(), realizedFrom ? { realizedFrom } : {});

test('firstDifference names the first differing character and shows a window of each text', () => {
  assert.equal(firstDifference('same', 'same'), null);
  assert.equal(firstDifference('Question: 2+2?\nAnswer:', 'Question: 2+2?\nA:'), 'at character 16, the log has "Question: 2+2?\\nAnswer:" where this audit has "Question: 2+2?\\nA:"');
  // A long prompt shows 20 characters before the difference and 40 after.
  const long = `${'x'.repeat(100)}Answer: ${'y'.repeat(100)}`;
  assert.equal(firstDifference(long, long.replace('Answer', 'Reply')), `at character 100, the log has "${'x'.repeat(20)}Answer: ${'y'.repeat(32)}" where this audit has "${'x'.repeat(20)}Reply: ${'y'.repeat(33)}"`);
  // One text a prefix of the other: the difference is where the shorter ends.
  assert.equal(firstDifference('abc', 'abcdef'), 'at character 3, the log has "abc" where this audit has "abcdef"');
});

test('resume holds to the log by its bytes; a comparison only to whether realized was read, and from which harness', () => {
  const log = (sha256: string, tool = 'lm-evaluation-harness'): RealizedFrom => ({ source: `/logs/${sha256}.jsonl`, sha256, tool });
  assert.deepEqual(manifestMismatches(manifestOf(log('a')), manifestOf({ ...log('a'), source: '/moved.jsonl' })), [], 'the same log moved still resumes');
  assert.match(manifestMismatches(manifestOf(log('a')), manifestOf(log('b'))).join('\n'), /realized outputs \(--realized-from\): the run has "lm-evaluation-harness log sha256 a", this command gives "lm-evaluation-harness log sha256 b"/);
  assert.match(manifestMismatches(manifestOf(log('a')), manifestOf()).join('\n'), /this command gives "generated"/);
  assert.deepEqual(comparisonMismatches(manifestOf(log('a')), manifestOf(log('b'))), [], "base and tuned each read their own log");
  assert.match(comparisonMismatches(manifestOf(log('a')), manifestOf()).join('\n'), /the base run has "read from a lm-evaluation-harness log", the tuned run has "generated"/);
  assert.match(comparisonMismatches(manifestOf(log('a')), manifestOf(log('b', 'inspect_ai'))).join('\n'), /read from a inspect_ai log/);
  assert.deepEqual(manifestMismatches(manifestOf(), manifestOf()), []);
});
