/**
 * Few-shot presets for base models: the published GSM8K and Minerva prompts as lm-evaluation-harness
 * builds them, test-split exemplars that are exactly the benchmark lines their provenance names
 * (ARC, MMLU's generic set), prompts in the published layouts, stop strings cut by the engine's stop
 * detector, exemplar questions skipped, and the error for a model without a chat template.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PRESETS, TEST_SPLIT_SETS, checkPresetFormat, presetDeployment } from '../../../src/audit/presets/presets';
import { GSM8K_COT_SET, MINERVA_MATH_SET } from '../../../src/audit/presets/publishedExemplars';
import { FEW_SHOT_PRESET_NAMES, PRESET_NAMES } from '../../../src/audit/presets/presetNames';
import { DEFAULT_DEPLOYMENT, deploymentRequest, promptIds, rawPromptText } from '../../../src/audit/probes/deployment';
import { loadDataset } from '../../../src/audit/dataset/dataset';
import { grade } from '../../../src/audit/answers/grade';
import { auditQuestions } from '../../../src/audit/runner/questionPipeline';
import { summarize } from '../../../src/audit/results/summary';
import { formatSummary } from '../../../src/audit/report/summaryText';
import type { QuestionRecord } from '../../../src/contract';
import { StopDetector } from '../../../src/engine/text/stopDetector';
import { InputError, MissingChatTemplateError } from '../../../src/common/errors';
import { FakeGenerator } from './fakeGenerator';
import { settingsFor } from './fixtures';

const root = path.resolve(__dirname, '../../../..');
const benchmarks = path.join(root, 'test/fixtures/benchmarks');
const fixtureLines = (file: string) => fs.readFileSync(path.join(benchmarks, file), 'utf8').split('\n');

test('every test-split exemplar is the benchmark line its provenance names, byte for byte, and the README names each source and licence', () => {
  const readme = fs.readFileSync(path.join(root, 'src/audit/presets/README.md'), 'utf8');
  for (const name of PRESET_NAMES) assert.ok(readme.includes(name), `README.md names the preset ${name}`);
  for (const name of FEW_SHOT_PRESET_NAMES) {
    const set = TEST_SPLIT_SETS[name];
    if (!set) continue;
    const lines = fixtureLines(set.file);
    for (const { line, text } of set.lines) assert.equal(text, lines[line - 1], `${name}: ${set.file}:${line}`);
    assert.ok(readme.includes(set.file) && readme.includes(set.licence), `README.md names ${set.file} and its licence`);
  }
  assert.deepEqual(Object.keys(TEST_SPLIT_SETS).sort(), ['arc-5shot', 'mmlu-5shot']);
  assert.deepEqual([...FEW_SHOT_PRESET_NAMES].sort(), Object.keys(PRESETS).sort());
});

test('each preset has its published number of examples and its stop strings, and every example has its provenance', () => {
  const shots = { 'gsm8k-cot-8shot': 8, 'math-minerva-4shot': 4, 'arc-5shot': 5, 'mmlu-5shot': 5 };
  const origin = { 'gsm8k-cot-8shot': 'published', 'math-minerva-4shot': 'published', 'arc-5shot': 'test-split', 'mmlu-5shot': 'test-split' };
  for (const name of FEW_SHOT_PRESET_NAMES) {
    const d = presetDeployment(name, DEFAULT_DEPLOYMENT);
    assert.equal(d.fewShot.length, shots[name]);
    assert.equal(d.prompt, 'raw');
    assert.equal(d.preset, name);
    assert.equal(d.exemplars, origin[name]);
    const set = TEST_SPLIT_SETS[name];
    const from = set ? set.file.replace('.', '\\.') : 'github\\.com/EleutherAI/lm-evaluation-harness@4e7e0d47f33b:lm_eval/tasks/';
    for (const ex of d.fewShot) assert.match(ex.source ?? '', new RegExp(`^${from}.+ \\(.+; (MIT|CC BY-SA 4\\.0)\\)$`));
  }
  // The harness's stop strings.
  assert.deepEqual(presetDeployment('gsm8k-cot-8shot', DEFAULT_DEPLOYMENT).stop, ['Q:', '</s>', '<|im_end|>']);
  assert.deepEqual(presetDeployment('math-minerva-4shot', DEFAULT_DEPLOYMENT).stop, ['Problem:']);
  // --stop adds to the preset's stops (once each); budget and decoding stay the deployment's.
  const d = presetDeployment('gsm8k-cot-8shot', { ...DEFAULT_DEPLOYMENT, stop: ['\n\n\n', 'Q:'], maxNewTokens: 400, temperature: 0.5 });
  assert.deepEqual(d.stop, ['Q:', '</s>', '<|im_end|>', '\n\n\n']);
  assert.equal(d.maxNewTokens, 400);
  assert.equal(d.temperature, 0.5);
  assert.deepEqual(deploymentRequest(d, [1], { temperature: 0, topP: 1, seed: 0 }).stop, ['Q:', '</s>', '<|im_end|>', '\n\n\n']);
});

test('the GSM8K prompt as lm-evaluation-harness builds it: eight "Q: … A: <target>" blocks, then the question and "A:"', () => {
  const ds = loadDataset(path.join(benchmarks, 'gsm8k-test-sample.jsonl'));
  const want = [...GSM8K_COT_SET.examples.map((e) => `Q: ${e.question}\nA: ${e.target}`), `Q: ${ds.questions[0].text}\nA:`].join('\n\n');
  const text = rawPromptText(presetDeployment('gsm8k-cot-8shot', DEFAULT_DEPLOYMENT), ds.questions[0]);
  assert.equal(text, want);
  assert.ok(text.startsWith('Q: There are 15 trees in the grove. Grove workers will plant trees in the grove today. After they are done, there will be 21 trees. How many trees did the grove workers plant today?\nA: There are 15 trees originally. Then there were 21 trees after some more were planted. So there must have been 21 - 15 = 6. The answer is 6.\n\nQ: If there are 3 cars'));
});

test('the Minerva MATH prompt: "Problem:" and "Solution:" blocks with the harness\'s solutions (boxed answer, Final Answer line)', () => {
  const ds = loadDataset(path.join(benchmarks, 'math500-test-sample.jsonl'));
  const text = rawPromptText(presetDeployment('math-minerva-4shot', DEFAULT_DEPLOYMENT), ds.questions[0]);
  const blocks = text.split(/\n\n(?=Problem:\n)/);
  assert.equal(blocks.length, 5);
  const first = MINERVA_MATH_SET.examples[0];
  assert.equal(blocks[0], `Problem:\n${first.problem}\n\nSolution: ${first.solution}`);
  assert.equal(blocks[4], `Problem:\n${ds.questions[0].text}\n\nSolution:`);
});

test('the ARC and MMLU prompts: lettered options and "Answer: X"; MMLU starts with its instruction line', () => {
  const arc = loadDataset(path.join(benchmarks, 'arc-challenge-test-sample.jsonl'));
  const arcText = rawPromptText(presetDeployment('arc-5shot', DEFAULT_DEPLOYMENT), arc.questions[0]);
  assert.ok(arcText.startsWith('Question: Which statement best describes the effect of the Sun on the oceans?\nA. The Sun influences the formation of waves.\nB. The Sun creates water particles.\n'));
  assert.ok(arcText.includes("D. The Sun provides minerals.\nAnswer: A\n\nQuestion: Which of these gases"));
  assert.ok(arcText.endsWith(`\nD. ${arc.questions[0].choices![3].text}\nAnswer:`));
  const mmlu = loadDataset(path.join(benchmarks, 'mmlu-test-sample.jsonl'));
  const mmluText = rawPromptText(presetDeployment('mmlu-5shot', DEFAULT_DEPLOYMENT), mmlu.questions[0]);
  assert.ok(mmluText.startsWith('The following are multiple choice questions (with answers).\n\nHow many arithmetic sequences of consecutive odd integers sum to 240?\nA. 8\nB. 12\nC. 10\nD. 4\nAnswer: B\n\n'));
  assert.equal(mmluText.split('\nAnswer:').length - 1, 6);
});

test("each test-split example's worked answer reads, under the audit's own grading, as that example's gold", () => {
  for (const name of ['arc-5shot', 'mmlu-5shot'] as const) {
    const set = TEST_SPLIT_SETS[name]!;
    const ds = loadDataset(path.join(benchmarks, set.file));
    const shown = presetDeployment(name, DEFAULT_DEPLOYMENT).fewShot;
    set.lines.forEach(({ line }, i) => {
      const q = ds.questions.find((x) => x.line === line)!;
      const g = grade(shown[i].assistant, q);
      assert.ok(g.correct, `${name} ${set.file}:${line}: read ${g.answer} by ${g.rule}, gold ${q.gold}`);
    });
  }
});

test("the engine's incremental stop detector cuts a generation at the preset's stop strings", () => {
  const decode = (ids: readonly number[]) => String.fromCodePoint(...ids);
  const cases: [string, string, string][] = [
    ['gsm8k-cot-8shot', ' She has 18 - 9 = 9 left. The answer is 9.\n\nQ: Tom buys 3 apples', ' She has 18 - 9 = 9 left. The answer is 9.\n\n'],
    ['math-minerva-4shot', ' So $x = \\boxed{4}$.\nFinal Answer: The final answer is $4$. I hope it is correct.\n\nProblem:\nFind $y$.', ' So $x = \\boxed{4}$.\nFinal Answer: The final answer is $4$. I hope it is correct.\n\n'],
    ['arc-5shot', ' C\n\nQuestion: Which', ' C'],
    ['mmlu-5shot', ' B\nHow many', ' B'],
  ];
  for (const [name, output, kept] of cases) {
    const detector = new StopDetector(presetDeployment(name, DEFAULT_DEPLOYMENT).stop, decode);
    const ids = [...output].map((c) => c.codePointAt(0)!);
    let cut: string | null = null;
    for (let n = 1; n <= ids.length && cut === null; n++) cut = detector.push(ids.slice(0, n));
    assert.equal(cut, kept, name);
  }
});

test('a preset is refused on a benchmark of another answer format, and an unknown name lists the presets', () => {
  assert.throws(() => checkPresetFormat(presetDeployment('math-minerva-4shot', DEFAULT_DEPLOYMENT), 'gsm8k'), /--preset math-minerva-4shot is for boxed-format benchmarks; this dataset's answer format is gsm8k \(choose a preset for it: gsm8k-cot-8shot, deepseek-r1\)/);
  assert.throws(() => presetDeployment('gsm8k', DEFAULT_DEPLOYMENT), /--preset gsm8k: unknown preset; expected one of gsm8k-cot-8shot, math-minerva-4shot, arc-5shot, mmlu-5shot/);
  checkPresetFormat(presetDeployment('arc-5shot', DEFAULT_DEPLOYMENT), 'choice');
  checkPresetFormat(DEFAULT_DEPLOYMENT, 'exact');
});

test('questions that are examples in the prompt are skipped with the reason, counted apart from n', async () => {
  const ds = loadDataset(path.join(benchmarks, 'mmlu-test-sample.jsonl'));
  const questions = ds.questions.slice(8, 26);
  const model = new FakeGenerator(8, new Map(ds.questions.map((q) => [q.text, q.gold])));
  const records: QuestionRecord[] = [];
  const settings = settingsFor(8, { deployment: presetDeployment('mmlu-5shot', DEFAULT_DEPLOYMENT), repair: { enabled: false, referenceProbes: [] } });
  await auditQuestions(model, questions, settings, { onRecord: (r) => records.push(r) }, { inFlight: 5 });
  records.sort((a, b) => a.line - b.line); // in dataset order, as a finished run folder holds them
  const skipped = records.filter((r) => r.skipped);
  assert.deepEqual(skipped.map((r) => r.line), [10, 13, 14, 19, 24]);
  assert.ok(skipped.every((r) => r.skipped?.reason === 'exemplar' && /few-shot examples \(--preset mmlu-5shot\)/.test(r.skipped.message) && Object.keys(r.probes).length === 0));
  const s = summarize(records);
  assert.equal(s.n, 13);
  assert.equal(s.skipped.n, 5);
  assert.deepEqual(s.skipped.questions, []);
  assert.deepEqual(s.skipped.fewShotExamples?.map((x) => x.line), [10, 13, 14, 19, 24]);
  assert.match(formatSummary(s), /skipped, not in n: 5 questions shown with their answer as few-shot examples in the prompt \(10, 13, 14, 19, 24\)/);
});

test('a model without a chat template: the error names --preset and --prompt raw, not the engine commands\' --raw', () => {
  const ds = loadDataset(path.join(benchmarks, 'gsm8k-test-sample.jsonl'));
  const model = new FakeGenerator(8, new Map());
  model.encodeChat = () => {
    throw new MissingChatTemplateError('/models/base/tokenizer_config.json');
  };
  assert.throws(
    () => promptIds(DEFAULT_DEPLOYMENT, ds.questions[0], model),
    (e: unknown) =>
      e instanceof InputError &&
      /^\/models\/base\/tokenizer_config\.json: the model has no chat_template/.test((e as Error).message) &&
      /--preset NAME \(gsm8k-cot-8shot, math-minerva-4shot, arc-5shot, mmlu-5shot\)/.test((e as Error).message) &&
      /--prompt raw/.test((e as Error).message) &&
      !/--raw\b/.test((e as Error).message),
  );
  // The raw prompt of a preset needs no chat template.
  assert.ok(promptIds(presetDeployment('gsm8k-cot-8shot', DEFAULT_DEPLOYMENT), ds.questions[0], model).length > 0);
});

test("deepseek-r1: the published evaluation settings on the model's chat template (deepseek-ai/DeepSeek-R1 README)", () => {
  const d = presetDeployment('deepseek-r1', { ...DEFAULT_DEPLOYMENT, system: 'be brief', stop: ['END'] });
  assert.deepEqual(
    { prompt: d.prompt, preset: d.preset, system: d.system, fewShot: d.fewShot, temperature: d.temperature, topP: d.topP, stop: d.stop, maxNewTokens: d.maxNewTokens },
    { prompt: 'chat', preset: 'deepseek-r1', system: undefined, fewShot: [], temperature: 0.6, topP: 0.95, stop: ['END'], maxNewTokens: DEFAULT_DEPLOYMENT.maxNewTokens },
  );
  assert.equal(d.instruction, 'Please reason step by step, and put your final answer within \\boxed{}.');
  // Flags given beside it win.
  const given = presetDeployment('deepseek-r1', DEFAULT_DEPLOYMENT, undefined, { temperature: 0, topP: 1 });
  assert.deepEqual([given.temperature, given.topP], [0, 1]);
  // The question, then the directive on a new line, as the one user message.
  const q = { id: 'q', line: 1, schema: 'math' as const, format: 'boxed' as const, text: 'What is 1 + 1?', gold: '2', raw: {} };
  const seen: unknown[] = [];
  const model = { encodeChat: (m: unknown) => (seen.push(m), [1]), encodeRaw: () => [2] } as unknown as Parameters<typeof promptIds>[2];
  promptIds(d, q, model);
  assert.deepEqual(seen, [[{ role: 'user', content: 'What is 1 + 1?\nPlease reason step by step, and put your final answer within \\boxed{}.' }]]);
  checkPresetFormat(d, 'boxed');
  checkPresetFormat(d, 'gsm8k');
  assert.throws(() => checkPresetFormat(d, 'choice'), /--preset deepseek-r1 is for boxed and gsm8k-format benchmarks; this dataset's answer format is choice \(choose a preset for it: arc-5shot, mmlu-5shot\)/);
});
