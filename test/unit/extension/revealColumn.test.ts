/**
 * Walkthrough defect 2: one click on a table row replaced the panel with the dataset file in the
 * same editor group. A question's line opens beside the panel, or where its dataset already is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { revealColumn } from '../../../src/extension/panel/revealColumn';

test('never the panel\'s own group: the group beside it', () => {
  assert.equal(revealColumn(1, []), 2);
  assert.equal(revealColumn(2, []), 3);
  assert.equal(revealColumn(1, [1]), 2, 'the dataset open behind the panel is opened beside it, not over it');
});

test('the group already showing the dataset, when it is not the panel\'s', () => {
  assert.equal(revealColumn(2, [1]), 1);
  assert.equal(revealColumn(1, [3, 2]), 2);
  assert.equal(revealColumn(2, [2, 3]), 3);
});

test('no panel column known: beside the active group', () => {
  assert.equal(revealColumn(undefined, []), undefined);
  assert.equal(revealColumn(undefined, [2]), 2);
});
