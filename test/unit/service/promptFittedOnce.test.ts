/**
 * A local audit fits each question's prompt once: the KV plan's pass (which fits every prompt to
 * find the longest) hands its fits to the run, which does not tokenize them again — with the
 * pre-run estimate too — and the records are those of fitting each prompt anew.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { prepareAuditJob } from '../../../src/service/auditJob';
import { FittedPrompts, fitQuestionPrompt } from '../../../src/audit/probes';
import { parseDataset } from '../../../src/audit/dataset';
import { FakeGenerator } from '../audit/fakeGenerator';
import { settingsFor } from '../audit/fixtures';

const DEMO = path.resolve(__dirname, '../../../../media/demo/tuned');

/** A tokenizer that counts how often each question's text is tokenized. */
class CountingFake extends FakeGenerator {
  readonly encoded = new Map<string, number>();
  constructor(private readonly texts: readonly string[]) {
    super(8, new Map(texts.map((t, i) => [t, String(i + 2)])));
  }
  override encodeRaw(text: string): number[] {
    for (const t of this.texts) if (text.includes(t)) this.encoded.set(t, (this.encoded.get(t) ?? 0) + 1);
    return super.encodeRaw(text);
  }
}

async function audit(texts: readonly string[], kvMemory: string, dir: string): Promise<{ encoded: Map<string, number>; records: string }> {
  const data = path.join(dir, 'q.jsonl');
  fs.writeFileSync(data, texts.map((t, i) => JSON.stringify({ id: `q${i}`, question: t, answer: `#### ${i + 2}` })).join('\n') + '\n');
  const model = new CountingFake(texts);
  const out = path.join(dir, `run-${kvMemory}`);
  const job = await prepareAuditJob({ options: { data, probes: ['sample:2'], kvMemory, out }, modelDir: DEMO, workspace: dir, name: 'once', warn: () => {} });
  await job.run({
    acquireModel: async () => ({ generator: model, setKvMemory: () => {}, dispose: async () => {} }),
    onEstimate: () => {},
  });
  return { encoded: model.encoded, records: fs.readFileSync(path.join(out, 'records.jsonl'), 'utf8') };
}

test('each question is tokenized once per audit, with the KV plan, the estimate and the run all using its prompt', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fitted-once-'));
  try {
    const texts = Array.from({ length: 6 }, (_, i) => `Question number ${i}: what is ${i} plus 2?`);
    const budgeted = await audit(texts, '1G', dir);
    // The first prompt is rendered once more before the run, to read whether the chat template opens a thinking block (runThinking.ts).
    assert.deepEqual([...budgeted.encoded.values()], texts.map((_, i) => (i === 0 ? 2 : 1)), `tokenized per question: ${[...budgeted.encoded.values()].join(', ')}`);
    assert.equal(budgeted.records.trim().split('\n').length, texts.length);
    const unbudgeted = await audit(texts, 'off', dir);
    assert.equal(unbudgeted.records, budgeted.records, 'the records do not depend on where the fit came from');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the store keeps fits up to its bound, hands each over once, and only under the deployment and model it fitted them for', () => {
  const ds = parseDataset('/v.jsonl', ['What is 2 plus 2?', 'What is 13 plus 13?', 'What is 7 plus 7?'].map((q, i) => JSON.stringify({ id: `q${i}`, question: q, answer: '#### 4' })).join('\n') + '\n');
  const deployment = settingsFor().deployment;
  const model = new FakeGenerator(8, new Map());
  const sizes = ds.questions.map((q) => ('ids' in fitQuestionPrompt(deployment, q, model) ? (fitQuestionPrompt(deployment, q, model) as { ids: number[] }).ids.length : 0));
  const store = new FittedPrompts(deployment, model, sizes[0] + sizes[1]);
  for (const q of ds.questions) store.fit(q);
  assert.equal(store.heldTokens, sizes[0] + sizes[1], 'the third is past the bound');
  assert.equal(store.peek(ds.questions[0], { ...deployment }, model), undefined, 'another deployment object gets none');
  assert.equal(store.peek(ds.questions[0], deployment, new FakeGenerator(8, new Map())), undefined, 'another model gets none');
  assert.deepEqual(store.peek(ds.questions[0], deployment, model), fitQuestionPrompt(deployment, ds.questions[0], model));
  assert.deepEqual(store.take(ds.questions[0], deployment, model), fitQuestionPrompt(deployment, ds.questions[0], model));
  assert.equal(store.take(ds.questions[0], deployment, model), undefined, 'handed over once');
  assert.equal(store.take(ds.questions[2], deployment, model), undefined, 'not kept');
  assert.equal(store.heldTokens, sizes[1]);
});
