/**
 * Few-shot prompt presets for base models (`--preset NAME`), in the published styles: GSM8K
 * chain-of-thought 8-shot and Minerva MATH 4-shot as lm-evaluation-harness ships them (its
 * exemplars, layout and stop strings; publishedExemplars.ts), ARC and MMLU 5-shot answered with a
 * letter after "Answer:". A preset is a raw-prompt deployment: its template, exemplars and stop
 * strings are written into the run's manifest like any other deployment, each exemplar with its
 * provenance, and where they come from (`exemplars`). ARC's examples, and MMLU's without a dev split
 * (`--fewshot-file`), are benchmark test-split lines (flagged); a question that is one of its
 * prompt's exemplars is skipped (questionSteps.ts).
 */
import { InputError } from '../../common';
import { type AnswerFormat, type Question, userMessage } from '../dataset';
import type { ExemplarOrigin, SubjectPrompt, Deployment, FewShotExample } from '../../contract';
import { exemplarQuestions, type ExemplarSet } from './exemplarSet';
import { GSM8K_COT_SET, MINERVA_MATH_SET, publishedExamples } from './publishedExemplars';
import { ARC_EXEMPLARS } from './arcExemplars';
import { MMLU_EXEMPLARS } from './mmluExemplars';
import { PRESET_NAMES, type FewShotPresetName, type PresetName } from './presetNames';
import { DEEPSEEK_R1 } from './reasoningPresets';

export interface Preset {
  name: FewShotPresetName;
  /** The answer format of the benchmarks it is written for. */
  format: AnswerFormat;
  /** One line for --help. */
  summary: string;
  /** Raw text before the examples (MMLU's instruction line), or none. */
  preamble?: string;
  /** The raw template; `{question}` takes the question (for choice questions its options too). */
  template: string;
  /** `published`: the harness's exemplars; `test-split`: benchmark test lines (flagged when used). */
  origin: Extract<ExemplarOrigin, 'published' | 'test-split'>;
  /** The worked examples as the prompt shows them, each with its provenance. */
  examples(): FewShotExample[];
  stop: string[];
}

/** Test-split benchmark lines as examples, answered by `answer`. */
function testSplitExamples(set: ExemplarSet, answer: (q: Question) => string): FewShotExample[] {
  return exemplarQuestions(set).map(({ question, provenance }) => ({ user: userMessage(question), assistant: answer(question), source: provenance }));
}

export const PRESETS: Record<FewShotPresetName, Preset> = {
  'gsm8k-cot-8shot': {
    name: 'gsm8k-cot-8shot',
    format: 'gsm8k',
    summary: 'GSM8K, the 8 chain-of-thought exemplars of Wei et al. ("Q: … A: … The answer is N."), as lm-evaluation-harness ships them; stop at "Q:"',
    // lm-evaluation-harness gsm8k-cot.yaml: doc_to_text "Q: {{question}}\nA:", target after one space, shots joined by a blank line.
    template: 'Q: {question}\nA:',
    origin: 'published',
    examples: () => publishedExamples(GSM8K_COT_SET, 'question', 'target'),
    // The harness's `until`: the next question, and two end-of-text markers as text.
    stop: ['Q:', '</s>', '<|im_end|>'],
  },
  'math-minerva-4shot': {
    name: 'math-minerva-4shot',
    format: 'boxed',
    summary: 'MATH, Minerva\'s 4 exemplars (boxed answer and "Final Answer: The final answer is $X$. I hope it is correct."), as lm-evaluation-harness ships them; stop at "Problem:"',
    template: 'Problem:\n{question}\n\nSolution:',
    origin: 'published',
    examples: () => publishedExamples(MINERVA_MATH_SET, 'problem', 'solution'),
    stop: ['Problem:'],
  },
  'arc-5shot': {
    name: 'arc-5shot',
    format: 'choice',
    summary: 'ARC, 5 questions with lettered options answered "Answer: X"; stop at a new line or "Question:"',
    template: 'Question: {question}\nAnswer:',
    origin: 'test-split',
    examples: () => testSplitExamples(ARC_EXEMPLARS, (q) => ` ${q.gold}`),
    stop: ['\n', 'Question:'],
  },
  'mmlu-5shot': {
    name: 'mmlu-5shot',
    format: 'choice',
    summary: 'MMLU, 5 questions with lettered options answered "Answer: X" after the MMLU instruction line (each subject\'s dev examples with --fewshot-file); stop at a new line',
    preamble: 'The following are multiple choice questions (with answers).',
    template: '{question}\nAnswer:',
    origin: 'test-split',
    examples: () => testSplitExamples(MMLU_EXEMPLARS, (q) => ` ${q.gold}`),
    stop: ['\n'],
  },
};

/** The test-split lines a preset's generic examples come from (ARC, MMLU), for its warning; none for the published sets. */
export const TEST_SPLIT_SETS: Partial<Record<FewShotPresetName, ExemplarSet>> = { 'arc-5shot': ARC_EXEMPLARS, 'mmlu-5shot': MMLU_EXEMPLARS };

export function presetNamed(name: string): Preset | typeof DEEPSEEK_R1 {
  if (!(PRESET_NAMES as readonly string[]).includes(name)) throw new InputError(`--preset ${name}: unknown preset; expected one of ${PRESET_NAMES.join(', ')}`);
  return name === DEEPSEEK_R1.name ? DEEPSEEK_R1 : PRESETS[name as FewShotPresetName];
}

/** The formats a preset is written for. */
function formatsOf(name: PresetName): readonly AnswerFormat[] {
  const preset = presetNamed(name);
  return 'formats' in preset ? preset.formats : [preset.format];
}

/**
 * The deployment of a reasoning preset: the model's chat template, no system message or examples,
 * the directive after the question, and the published decoding where `given` sets none.
 */
function reasoningDeployment(base: Deployment, given: { temperature?: number; topP?: number }): Deployment {
  const rest: Deployment = { ...base };
  delete rest.template;
  delete rest.system;
  return { ...rest, prompt: 'chat', preset: DEEPSEEK_R1.name, fewShot: [], instruction: DEEPSEEK_R1.instruction, temperature: given.temperature ?? DEEPSEEK_R1.temperature, topP: given.topP ?? DEEPSEEK_R1.topP };
}

/** The preset's worked examples as the deployment shows them. */
export function presetExamples(preset: Preset): FewShotExample[] {
  return preset.examples();
}

/**
 * The deployment of a preset: a raw prompt with the preset's template, preamble, examples and stop
 * strings (plus any stop strings of `base`); budget and decoding stay those of `base`. `bySubject`
 * (MMLU's dev split, mmluDevSplit.ts) gives each of its subjects its own header and examples.
 */
export function presetDeployment(name: string, base: Deployment, bySubject?: Record<string, SubjectPrompt>, given: { temperature?: number; topP?: number } = {}): Deployment {
  const preset = presetNamed(name);
  if ('formats' in preset) {
    if (bySubject) throw new InputError(`--fewshot-file gives MMLU dev-split examples per subject; it is for --preset mmlu-5shot, not ${preset.name}`);
    return reasoningDeployment(base, given);
  }
  if (bySubject && preset.name !== 'mmlu-5shot') throw new InputError(`--fewshot-file gives MMLU dev-split examples per subject; it is for --preset mmlu-5shot, not ${preset.name}`);
  // A preset is a raw prompt: a chat system message or another template has no place in it.
  const rest: Deployment = { ...base };
  delete rest.template;
  delete rest.system;
  return {
    ...rest,
    prompt: 'raw',
    preset: preset.name,
    ...(preset.preamble ? { preamble: preset.preamble } : {}),
    template: preset.template,
    fewShot: presetExamples(preset),
    ...(bySubject ? { bySubject } : {}),
    exemplars: bySubject ? 'dev-split' : preset.origin,
    stop: [...preset.stop, ...base.stop.filter((s) => !preset.stop.includes(s))],
  };
}

/** A preset is written for one answer format; a dataset of another is refused, naming both. */
export function checkPresetFormat(deployment: Deployment, format: AnswerFormat): void {
  if (!deployment.preset) return;
  const name = presetNamed(deployment.preset).name;
  const formats = formatsOf(name);
  if (!formats.includes(format)) {
    throw new InputError(`--preset ${name} is for ${formats.join(' and ')}-format benchmarks; this dataset's answer format is ${format} (choose a preset for it: ${PRESET_NAMES.filter((n) => formatsOf(n).includes(format)).join(', ') || 'none yet'})`);
  }
}
