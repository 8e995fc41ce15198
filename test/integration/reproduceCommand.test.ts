/**
 * The command behind a run: an audit started the way VS Code starts one (the extension's engine
 * client driving `dist/cli.js serve`, with options such as settings and the run's option pick
 * give: int8 weights, a sample temperature, search constants, the strict reading, a limit, a seed)
 * is audited again from a terminal by the command its manifest gives, and the records are the same.
 * `reach-audit report` prints that command.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';
import { EngineProcess } from '../../src/service/engineClient';
import { reproduceCommand } from '../../src/service/reproduceCommand';
import type { QuestionRecord, RunManifest } from '../../src/contract';

const repo = path.resolve(__dirname, '../../..');
const cli = path.join(repo, 'dist/cli.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-reproduce-'));
const cache = path.join(root, 'cache');
const model = path.join(root, 'model');
const data = path.join(root, 'gsm8k.jsonl');
const env = { REACH_AUDIT_CACHE: cache, REACH_AUDIT_DEBUG: '' };

function readRecords(folder: string): QuestionRecord[] {
  return fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as QuestionRecord);
}

describe('the command behind a run', () => {
  let engine: EngineProcess;
  before(() => {
    assert.ok(fs.existsSync(cli), `${cli} is missing: run npm run build first`);
    writeRandomModel(model, SMALL_SPECS.llama);
    const lines = [];
    for (let i = 0; i < 5; i++) lines.push(JSON.stringify({ id: `q${i}`, question: `What is ${i} + ${i}?`, answer: `${i} + ${i} = ${2 * i}\n#### ${2 * i}` }));
    fs.writeFileSync(data, lines.join('\n') + '\n');
    engine = new EngineProcess({ cliPath: cli, cwd: root, env });
  });
  after(async () => {
    await engine.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  });

  test("an audit started as VS Code starts one gives the same records when its manifest's command is run from a terminal", async () => {
    const fromEditor = path.join(root, 'runs', 'editor');
    const outcome = await engine.request({
      type: 'audit',
      options: {
        model,
        data,
        workspace: root,
        out: fromEditor,
        probes: ['sample:2', 'routes:2', 'search:2'],
        select: ['majority', 'confidence'],
        repair: true,
        sampleTemperature: 0.7,
        searchC: 2.5,
        correctBy: 'strict',
        weights: 'int8',
        maxNewTokens: 4,
        limit: 4,
        seed: 7,
        name: "it's mine",
        batch: 2,
        threads: 1,
      },
    }).result;
    assert.equal(outcome.type, 'result', JSON.stringify(outcome).slice(0, 300));
    const manifest = JSON.parse(fs.readFileSync(path.join(fromEditor, 'manifest.json'), 'utf8')) as RunManifest;
    const r = reproduceCommand(manifest);
    assert.deepEqual(r.gaps, []);
    for (const f of ['--weights int8', '--sample-temperature 0.7', '--search-c 2.5', '--correct-by strict', '--limit 4', '--seed 7', "--name 'it'\\''s mine'"]) assert.ok(r.command.includes(f), `${f} in ${r.command}`);

    // From a terminal: the quoted line through a shell, with reach-audit being the built CLI.
    const bin = path.join(root, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'reach-audit'), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`, { mode: 0o755 });
    const again = path.join(root, 'runs', 'terminal');
    const shell = spawnSync('/bin/sh', ['-c', `${r.command} --out ${again} --threads 1`], { cwd: os.tmpdir(), env: { ...process.env, ...env, PATH: `${bin}:${process.env.PATH ?? ''}` }, encoding: 'utf8' });
    assert.equal(shell.status, 0, shell.stderr);
    assert.equal(readRecords(again).length, 4);
    assert.deepEqual(readRecords(again), readRecords(fromEditor));

    // reach-audit report says it.
    const report = spawnSync(process.execPath, [cli, 'report', fromEditor], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });
    assert.equal(report.status, 0, report.stderr);
    assert.ok(report.stdout.includes(`Run again with:\n  ${r.command}\n`), report.stdout.slice(-600));
  });
});
