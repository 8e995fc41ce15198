/**
 * A model whose activations overflow float32 on one question, with the real CLI: the audit stops
 * naming the model, the block and the token; every question finished before it stays in
 * records.jsonl, nothing is left behind, and `report` reads them.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtCli, runCli } from '../support/cliRun';
import { writeOverflowingModel } from '../support/overflowingModel';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-overflow-'));
const model = path.join(root, 'model');
const data = path.join(root, 'test.jsonl');
const out = path.join(root, 'run');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };

describe('activations that overflow during an audit', () => {
  before(() => {
    assert.ok(fs.existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    writeOverflowingModel(model, '~'.charCodeAt(0)); // the byte-level token of "~"
    const questions = [
      { id: 'q1', question: 'What is 2 + 2?', answer: '#### 4' },
      { id: 'q2', question: 'What is 3 + 3?', answer: '#### 6' },
      { id: 'q3', question: 'What is 4 ~ 4?', answer: '#### 8' },
      { id: 'q4', question: 'What is 5 + 5?', answer: '#### 10' },
    ];
    fs.writeFileSync(data, questions.map((q) => JSON.stringify(q)).join('\n') + '\n');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('stops naming the model, block and token; the finished questions are kept', () => {
    const r = runCli(['audit', '--model', model, '--data', data, '--probe', 'routes:2', '--max-new-tokens', '6', '--batch', '1', '--threads', '1', '--out', out], { cwd: root, env });
    assert.equal(r.code, 2, r.stderr);
    const records = path.join(out, 'records.jsonl');
    const lastLine = r.stderr.trimEnd().split('\n').pop() ?? '';
    assert.match(
      lastLine,
      new RegExp(
        `^reach-audit audit: model ${model}: block 0 \\(position 0 of route \\[0,1,2,3\\]\\) produced (?:NaN|-?Infinity) at token \\d+ of the \\d+-token prompt; ` +
          `the weights are finite \\(checked at load\\), so the activations overflow float32 on this input\\. ` +
          `2 finished questions are kept in ${records}; the rest were not audited$`,
      ),
    );
    assert.deepEqual(fs.readFileSync(records, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id), ['q1', 'q2']);
    assert.deepEqual(fs.readdirSync(out).filter((f) => f.endsWith('.tmp') || f.includes('.lock') || f.includes('.write-test')), [], 'nothing left behind');
    assert.equal(fs.existsSync(path.join(out, 'summary.json')), false, 'no summary of an unfinished run');
    const report = runCli(['report', out], { cwd: root, env });
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stderr, /has not finished: 2 of 4 questions; the summary covers the finished ones/);
  });
});
