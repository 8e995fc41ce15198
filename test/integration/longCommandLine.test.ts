/**
 * Flags of any length, with the real CLI (issue 39, defect 4): onnxruntime reads the process's
 * command line when it starts and recursed once per character on the main thread's stack, so a
 * 40 KB --stop or 4,800 --ids ended in SIGSEGV with nothing written. Each now works or gives a
 * clear error, and the long values still reach the command.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtCli, runCli } from '../support/cliRun';
import { SMALL_SPECS, writeRandomModel } from '../support/modelFolder';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-long-argv-'));
const model = path.join(root, 'model');
const data = path.join(root, 'many.jsonl');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const IDS = Array.from({ length: 4800 }, (_, i) => `question-${String(i).padStart(5, '0')}`);

describe('command lines of 40 KB and more (issue 39, defect 4)', { timeout: 180_000 }, () => {
  before(() => {
    assert.ok(fs.existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    writeRandomModel(model, SMALL_SPECS.llama);
    fs.writeFileSync(data, IDS.map((id, i) => JSON.stringify({ id, question: `What is ${i} + 1?`, answer: `#### ${i + 1}` })).join('\n') + '\n');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('a 40 KB --stop works: the audit finishes and records the stop string', () => {
    const stop = 'x'.repeat(40_000);
    const out = path.join(root, 'stop');
    const r = runCli(['audit', '--model', model, '--data', data, '--ids', IDS[0], '--probe', 'sample:1', '--max-new-tokens', '2', '--threads', '1', '--stop', stop, '--out', out], { cwd: root, env });
    assert.equal(r.code, 0, r.stderr.slice(0, 2000));
    const manifest = fs.readFileSync(path.join(out, 'manifest.json'), 'utf8');
    assert.ok(manifest.includes(stop), 'the 40 KB stop string reached the run');
    assert.equal(fs.readFileSync(path.join(out, 'records.jsonl'), 'utf8').split('\n').filter(Boolean).length, 1);
  });

  it('4,800 --ids reach the audit: a clear error for a budget past the context, not a crash', () => {
    const out = path.join(root, 'ids');
    const r = runCli(['audit', '--model', model, '--data', data, '--ids', IDS.join(','), '--max-new-tokens', '100000', '--threads', '1', '--out', out], { cwd: root, env });
    assert.equal(r.code, 2, `exit ${r.code}: ${r.stderr.slice(0, 2000)}`);
    assert.match(r.stderr, /--max-new-tokens 100000 leaves no room for a prompt in the model's context/);
  });
});
