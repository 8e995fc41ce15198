/**
 * The "using the model …" notice: once per model folder and role in a session, never on servers
 * (it came on every command, remote mode included).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReusedModelNotices } from '../../../src/extension/commands/reusedModelNotices';

test('once per folder and role; another folder or role is said again', () => {
  const notices = new ReusedModelNotices();
  assert.equal(notices.take('model', '/m/a', false), true);
  assert.equal(notices.take('model', '/m/a', false), false, 'the second command in the session says nothing');
  assert.equal(notices.take('model', '/m/a/', false), false, 'the same folder however spelled');
  assert.equal(notices.take('model', '/m/b', false), true, 'another folder is named');
  assert.equal(notices.take('base', '/m/a', false), true, 'the same folder in another role is named');
});

test('never while generations run on servers', () => {
  const notices = new ReusedModelNotices();
  assert.equal(notices.take('model', '/m/a', true), false);
  assert.equal(notices.take('model', '/m/a', true), false);
  // Back on the local engine, the folder is named once.
  assert.equal(notices.take('model', '/m/a', false), true);
});
