/**
 * What the VS Code suite cannot do (its tests run inside the extension host): the host going away
 * while an audit it started as a process of its own runs. A stand-in host starts the real CLI the
 * way the extension does (startDetachedCli), and is then killed with SIGKILL together with its
 * whole process group; the audit goes on, and its folder ends with every question and its summary.
 */
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';
import { detachedRunState, processAlive, writerPid } from '../../src/extension/commands/detachedRun';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const detachedModule = path.join(repo, 'out/src/extension/commands/detachedRun.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-detached-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const model = path.join(root, 'model');
const data = path.join(root, 'test.jsonl');
const QUESTIONS = 40;

async function until(what: string, ok: () => boolean, ms = 180_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function recordIds(folder: string): string[] {
  try {
    return fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => String((JSON.parse(l) as { id: unknown }).id));
  } catch {
    return [];
  }
}

test('an audit started as a process of its own outlives its host killed with its process group', async () => {
  assert.ok(fs.existsSync(cli), 'dist/cli.js is missing: run npm run build first');
  writeRandomModel(model, SMALL_SPECS.llama);
  fs.writeFileSync(data, Array.from({ length: QUESTIONS }, (_, i) => JSON.stringify({ id: `q${i}`, question: `What is ${i} + 1?`, answer: `#### ${i + 1}` })).join('\n') + '\n');
  const folder = path.join(root, 'run');
  const args = ['audit', '--model', model, '--data', data, '--probe', 'sample:4', '--probe', 'routes:4', '--max-new-tokens', '8', '--batch', '1', '--threads', '1', '--out', folder];
  // The stand-in host: starts the CLI as the extension does, says so, and stays until killed.
  const script = `const d = require(${JSON.stringify(detachedModule)}); d.startDetachedCli({ node: process.execPath, cliPath: ${JSON.stringify(cli)}, args: ${JSON.stringify(args)}, cwd: ${JSON.stringify(root)}, env: { ...process.env, REACH_AUDIT_CACHE: ${JSON.stringify(path.join(root, 'cache'))} }, folder: ${JSON.stringify(folder)} }); console.log('started'); setInterval(() => {}, 1000);`;
  const host = spawn(process.execPath, ['-e', script], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    host.stdout.on('data', (d: Buffer) => d.toString().includes('started') && resolve());
    host.on('exit', (code) => reject(new Error(`the stand-in host exited with ${code}`)));
  });
  const pid = writerPid(folder);
  assert.ok(pid !== undefined && pid !== host.pid);
  await until('its first record', () => recordIds(folder).length > 0);
  assert.ok(recordIds(folder).length < QUESTIONS, 'still going when the host goes');
  // The host and everything in its process group, at once, without a chance to clean up.
  assert.ok(host.pid);
  process.kill(-host.pid, 'SIGKILL');
  await new Promise((r) => host.once('exit', r));
  assert.equal(processAlive(pid), true, 'the audit outlived its host');
  assert.equal(detachedRunState(folder), 'running');
  await until('the summary', () => fs.existsSync(path.join(folder, 'summary.json')));
  const ids = recordIds(folder);
  assert.equal(ids.length, QUESTIONS);
  assert.equal(new Set(ids).size, QUESTIONS, 'each question once');
  await until('the process ended', () => !processAlive(pid), 30_000);
  assert.equal(detachedRunState(folder), 'finished');
});
