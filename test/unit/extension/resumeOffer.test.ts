/**
 * The panel header's Resume: offered for a stopped run or comparison that is not going, with a
 * sentence only where no status line says it stopped; never for a finished, imported or
 * never-started run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resumeOffer, type ResumeSide } from '../../../src/extension/panel/resumeOffer';

const side = (over: Partial<ResumeSide> = {}): ResumeSide => ({ name: 'run', started: true, finished: false, imported: false, records: 7, ...over });

test('a run cut by a reload (no status line): Resume, and the header says what was kept', () => {
  assert.deepEqual(resumeOffer({ run: side() }), { comparison: false, note: 'Stopped before its end · 7 questions kept.' });
  assert.deepEqual(resumeOffer({ run: side({ records: 1 }) }), { comparison: false, note: 'Stopped before its end · 1 question kept.' });
});

test('cancelled or failed: Resume without a sentence (the status line says it)', () => {
  assert.deepEqual(resumeOffer({ run: side(), status: 'cancelled' }), { comparison: false });
  assert.deepEqual(resumeOffer({ run: side(), status: 'failed' }), { comparison: false });
});

test('no Resume while going, once finished, for an imported log or a run that never started', () => {
  assert.equal(resumeOffer({ run: side(), status: 'running' }), undefined);
  assert.equal(resumeOffer({ run: side({ finished: true }) }), undefined);
  assert.equal(resumeOffer({ run: side({ finished: true }), status: 'done' }), undefined);
  assert.equal(resumeOffer({ run: side({ imported: true }) }), undefined);
  assert.equal(resumeOffer({ run: side({ started: false }) }), undefined);
});

test('a comparison: Resume when either run is unfinished, naming those', () => {
  const base = side({ name: 'base', finished: true, records: 30 });
  const tuned = side({ name: 'tuned', records: 4 });
  assert.deepEqual(resumeOffer({ run: tuned, base }), { comparison: true, note: 'The comparison stopped before its end (tuned: 4 questions kept).' });
  assert.deepEqual(resumeOffer({ run: side({ name: 'tuned', finished: true }), base: side({ name: 'base', records: 2 }) }), { comparison: true, note: 'The comparison stopped before its end (base: 2 questions kept).' });
  assert.equal(resumeOffer({ run: side({ finished: true }), base }), undefined);
});
