/**
 * A valid question far longer than the model's context, with the real CLI and the demo model: it
 * is recorded as skipped from its length alone, without being tokenized (a 50 MB question used to
 * spend minutes and gigabytes in the tokenizer, or fail inside it), and the other questions run.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtCli, repoRoot, runCli } from '../support/cliRun';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-long-question-'));
const data = path.join(root, 'long.jsonl');
const out = path.join(root, 'run');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const QUESTION_BYTES = 50 << 20;

describe('a 50 MB question', () => {
  before(() => {
    assert.ok(fs.existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    const long = 'What is 1 plus 1? '.repeat(Math.ceil(QUESTION_BYTES / 18)).slice(0, QUESTION_BYTES);
    const lines = [
      { id: 'a', question: 'What is 2 + 2?', answer: '#### 4' },
      { id: 'long', question: long, answer: '#### 2' },
      { id: 'b', question: 'What is 3 + 3?', answer: '#### 6' },
    ];
    fs.writeFileSync(data, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('is skipped from its length before tokenizing, with the reason; the others are audited', () => {
    const started = Date.now();
    const r = runCli(['audit', '--model', path.join(repoRoot, 'media/demo/base'), '--data', data, '--probe', 'sample:1', '--max-new-tokens', '4', '--threads', '1', '--out', out], { cwd: root, env });
    const ms = Date.now() - started;
    assert.equal(r.code, 0, r.stderr);
    const records = fs.readFileSync(path.join(out, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; skipped?: { reason: string; message: string; promptTokens: number; contextLimit: number }; realized: { tokens: number } });
    assert.deepEqual(records.map((x) => x.id), ['a', 'long', 'b']);
    const skipped = records[1].skipped;
    assert.ok(skipped, 'the long question is skipped');
    assert.equal(skipped.reason, 'context');
    assert.equal(skipped.contextLimit, 512);
    assert.ok(skipped.promptTokens > 1_000_000, `at least ${skipped.promptTokens} tokens`);
    assert.equal(skipped.message, `at least ${skipped.promptTokens} prompt tokens + 4 new tokens = ${skipped.promptTokens + 4} positions exceed the model's context of 512 (max_position_embeddings) (counted from the prompt's length; it was not tokenized)`);
    assert.equal(records[1].realized.tokens, 0, 'nothing was generated for it');
    assert.ok(records[0].realized.tokens > 0 && records[2].realized.tokens > 0, 'the others were audited');
    const summary = JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')) as { n: number; skipped: { n: number } };
    assert.equal(summary.n, 2);
    assert.equal(summary.skipped.n, 1);
    // Tokenizing it took minutes before; reading, hashing and recording 50 MB takes seconds.
    assert.ok(ms < 120_000, `took ${ms} ms`);
  });
});
