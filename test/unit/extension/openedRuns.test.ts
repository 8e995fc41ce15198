/**
 * Open Run Folder…: a run folder, a folder of run folders, or a project holding .reach-audit/runs
 * opened from outside the workspace is listed like the workspace's runs, each with the command
 * line that audits it again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { listOpenedFolder, openedKind } from '../../../src/extension/sidebar/openedRuns';

const FIXTURES = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'runs');

test('a run folder, a folder of runs, a project and its .reach-audit folder are each recognised and listed', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-opened-'));
  try {
    const project = path.join(tmp, 'colleague');
    const runs = path.join(project, '.reach-audit', 'runs');
    fs.mkdirSync(runs, { recursive: true });
    for (const name of ['2026-12-01T09-30-00Z-demo-base', '2026-12-01T10-15-00Z-demo-tuned']) fs.cpSync(path.join(FIXTURES, name), path.join(runs, name), { recursive: true });
    const one = path.join(runs, '2026-12-01T09-30-00Z-demo-base');

    assert.equal(await openedKind(one), 'run');
    assert.equal(await openedKind(runs), 'runs');
    assert.equal(await openedKind(project), 'project');
    assert.equal(await openedKind(path.join(project, '.reach-audit')), 'project');
    assert.equal(await openedKind(tmp), 'none');
    assert.equal(await openedKind(path.join(tmp, 'gone')), 'none');

    const single = await listOpenedFolder(one);
    assert.deepEqual(single.map((r) => r.name), ['demo-base']);
    assert.match(single[0].command ?? '', /^reach-audit audit --model media\/demo\/base .* --name demo-base$/);
    for (const f of [runs, project, path.join(project, '.reach-audit')]) {
      assert.deepEqual((await listOpenedFolder(f)).map((r) => r.name), ['demo-tuned', 'demo-base'], f);
    }
    assert.deepEqual(await listOpenedFolder(path.join(tmp, 'gone')), []);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
