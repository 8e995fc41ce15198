import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { after, test } from 'node:test';
import { detachedAuditArgs, detachedRunState, DETACHED_PID_FILE, lastError, lastProgress, plannedRunFolder, processAlive, writerPid } from '../../../src/extension/commands/detachedRun';
import { AUDIT_FLAGS, optionsFromFlags } from '../../../src/service';

const temp = mkdtempSync(path.join(os.tmpdir(), 'reach-audit-detached-'));
after(() => rmSync(temp, { recursive: true, force: true }));

function runFolder(files: Record<string, string>): string {
  const dir = path.join(temp, `run-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

const HOST = 'this-host';
const alive = (pids: number[]) => (pid: number) => pids.includes(pid);

test('a run with its summary is finished, whatever its pid says', () => {
  const dir = runFolder({ 'summary.json': '{}', [DETACHED_PID_FILE]: JSON.stringify({ pid: 42, host: HOST }) });
  assert.equal(detachedRunState(dir, alive([42]), HOST), 'finished');
});

test('a run whose CLI process still runs is running; the folder lock\'s holder is not taken for it', () => {
  const started = runFolder({ [DETACHED_PID_FILE]: JSON.stringify({ pid: 8, host: HOST }) });
  assert.equal(writerPid(started, HOST), 8);
  assert.equal(detachedRunState(started, alive([8]), HOST), 'running');
  // A run the extension's engine child writes (started the usual way, maybe in another window): its lock names the child.
  const engineRun = runFolder({ 'manifest.json': '{}', '.reach-audit.lock.owner.json': JSON.stringify({ pid: 7, host: HOST, startedAt: 'x', purpose: 'reach-audit audit' }) });
  assert.equal(writerPid(engineRun, HOST), undefined);
  assert.equal(detachedRunState(engineRun, alive([7]), HOST), 'stopped');
});

test('a run whose writer is gone, or that names none, is stopped (Resume is offered)', () => {
  assert.equal(detachedRunState(runFolder({ [DETACHED_PID_FILE]: JSON.stringify({ pid: 8, host: HOST }) }), alive([]), HOST), 'stopped');
  // An engine child's run (the extension's own engine): no pid file, no lock left once it died.
  assert.equal(detachedRunState(runFolder({ 'manifest.json': '{}' }), alive([1, 2, 3]), HOST), 'stopped');
  // A writer on another machine cannot be checked from here.
  assert.equal(detachedRunState(runFolder({ [DETACHED_PID_FILE]: JSON.stringify({ pid: 8, host: 'elsewhere' }) }), alive([8]), HOST), 'stopped');
  assert.equal(detachedRunState(runFolder({ [DETACHED_PID_FILE]: 'not json' }), alive([8]), HOST), 'stopped');
});

test('processAlive: this process runs, an exited child does not', async () => {
  assert.equal(processAlive(process.pid), true);
  const child = spawn(process.execPath, ['-e', '']);
  const pid = child.pid;
  assert.ok(pid);
  await new Promise((r) => child.on('exit', r));
  assert.equal(processAlive(pid), false);
});

test('the CLI arguments are the options table flags, writing the planned folder', () => {
  const folder = path.join(temp, 'ws', '.reach-audit', 'runs', 'x');
  const args = detachedAuditArgs({ model: '/m', data: '/d.jsonl', probes: ['sample:4', 'routes:4'], maxNewTokens: 8, workspace: '/ws', name: 'n' }, folder);
  assert.deepEqual(args.slice(0, 3), ['audit', '--model', '/m']);
  const values = parseArgs({ args: args.slice(1), options: { model: { type: 'string' }, ...AUDIT_FLAGS }, strict: true, allowPositionals: false }).values;
  const { model, ...flags } = values;
  assert.equal(model, '/m');
  assert.deepEqual(optionsFromFlags(flags), { data: '/d.jsonl', probes: ['sample:4', 'routes:4'], maxNewTokens: 8, name: 'n', out: folder });
  assert.ok(!args.includes('--workspace'), 'the workspace is the process\'s folder, not a flag');
});

test('the planned folder: --out when given, else a new one named as the engine names it', () => {
  const ws = path.join(temp, 'ws2');
  assert.equal(plannedRunFolder({ model: '/m', data: '/d.jsonl', out: 'runs/r' }, ws), path.join(ws, 'runs', 'r'));
  const when = new Date('2026-12-07T16:00:00Z');
  const first = plannedRunFolder({ model: '/models/tuned', data: '/data/arith.jsonl' }, ws, when);
  assert.equal(path.dirname(first), path.join(ws, '.reach-audit', 'runs'));
  assert.match(path.basename(first), /tuned-arith$/);
  mkdirSync(first, { recursive: true });
  assert.equal(plannedRunFolder({ model: '/models/tuned', data: '/data/arith.jsonl' }, ws, when), `${first}-2`, 'two runs in one second get distinct folders');
});

test('the log: the last progress line counts, the last error line says why it ended', () => {
  const log = ['reach-audit: estimate …', 'n: 1/40 questions (2%) · 3s elapsed', 'n: 12/40 questions (30%) · 9s left · 5s elapsed', 'reach-audit: warning: something', 'reach-audit: cannot read /d.jsonl: no such file'].join('\n');
  assert.deepEqual(lastProgress(log), { done: 12, total: 40, line: '12/40 questions (30%) · 9s left · 5s elapsed' });
  assert.equal(lastProgress('nothing yet'), undefined);
  assert.equal(lastError(log), 'cannot read /d.jsonl: no such file');
  assert.equal(lastError('reach-audit: stopping — finished questions are kept'), undefined);
});
