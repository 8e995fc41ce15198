/**
 * Build Tables from the Runs view's selection names what it used and offers the rest; Show Training
 * Trajectory with none yet offers Watch Training Run… (issue 40 point 9: both were silent or CLI-only).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AUDIT_CHECKPOINT_FOLDERS, noTrajectoryNotice, PICK_SOURCES, selectionNotice, WATCH_TRAINING_RUN } from '../../../src/extension/tables/tableSourceNotices';

test('tables from the selection name the folders and offer the others', () => {
  const notice = selectionNotice(['/ws/.reach-audit/runs/2026-12-06T13-41-00Z-demo-base'], 4);
  assert.equal(notice.text, `Reach Audit: tables built from the 1 folder selected in the Runs view (2026-12-06T13-41-00Z-demo-base); 4 other runs and comparisons in this workspace are left out — ${PICK_SOURCES} builds from others.`);
  assert.deepEqual(notice.actions, [PICK_SOURCES]);
  assert.deepEqual(selectionNotice(['/a', '/b'], 0).actions, []);
  assert.match(selectionNotice(['/a', '/b'], 0).text, /2 folders selected in the Runs view \(a, b\); the workspace has no other/);
});

test('no trajectory yet: Audit Checkpoint Folders… and Watch Training Run… first, the terminal last', () => {
  const notice = noTrajectoryNotice('in a VS Code terminal');
  assert.deepEqual(notice.actions, [AUDIT_CHECKPOINT_FOLDERS, WATCH_TRAINING_RUN, 'Open Terminal']);
  assert.match(notice.text, /Audit Checkpoint Folders… audits checkpoint folders you pick/);
  assert.match(notice.text, /Watch Training Run… audits each checkpoint/);
});
