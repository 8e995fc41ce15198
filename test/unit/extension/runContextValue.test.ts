import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runContextValue } from '../../../src/extension/sidebar/runContextValue';

test("an imported run's row says so (Add Probes to This Log… is offered on it), before .outside", () => {
  assert.equal(runContextValue({ finished: true }, false), 'reachAudit.run');
  assert.equal(runContextValue({ finished: false }, false), 'reachAudit.unfinishedRun');
  assert.equal(runContextValue({ finished: false }, true), 'reachAudit.run');
  assert.equal(runContextValue({ finished: true, imported: true }, false), 'reachAudit.run.imported');
  assert.equal(runContextValue({ finished: true, imported: true, outside: true }, false), 'reachAudit.run.imported.outside');
  assert.equal(runContextValue({ finished: true, outside: true }, false), 'reachAudit.run.outside');
});

test("package.json's menus read these values: Add Probes on imported runs only; the run menus on every run", async () => {
  const { readFileSync } = await import('node:fs');
  const path = await import('node:path');
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../package.json'), 'utf8')) as { contributes: { menus: Record<string, { command: string; when?: string }[]> } };
  const items = pkg.contributes.menus['view/item/context'];
  const offered = (command: string, value: string) => {
    const item = items.find((m) => m.command === command);
    assert.ok(item?.when, command);
    // The row's pattern ends each of these clauses.
    const re = /viewItem =~ \/(.+)\/$/.exec(item.when)?.[1];
    assert.ok(re, item.when);
    return new RegExp(re).test(value);
  };
  assert.equal(offered('reachAudit.addProbesToLog', 'reachAudit.run.imported'), true);
  assert.equal(offered('reachAudit.addProbesToLog', 'reachAudit.run.imported.outside'), true);
  assert.equal(offered('reachAudit.addProbesToLog', 'reachAudit.run'), false);
  for (const command of ['reachAudit.openPanel', 'reachAudit.exportResults', 'reachAudit.copyRunCommand', 'reachAudit.regradeRun']) {
    assert.equal(offered(command, 'reachAudit.run.imported'), true, command);
    assert.equal(offered(command, 'reachAudit.run'), true, command);
  }
  assert.equal(offered('reachAudit.forgetRunFolder', 'reachAudit.run.imported.outside'), true);
  for (const command of ['reachAudit.addProbesToLog', 'reachAudit.regradeRun']) {
    assert.match(items.find((m) => m.command === command)?.when ?? '', /isWorkspaceTrusted/, `${command} is not offered in an untrusted workspace`);
  }
});
