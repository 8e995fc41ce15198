/**
 * Few-shot prompt presets for base models (`--preset NAME`), in the published styles: GSM8K
 * chain-of-thought 8-shot ("Question: … Answer: …", stop at "Question:"), Minerva-style MATH 4-shot
 * ("Problem: … Solution: …", stop at "Problem:"), ARC and MMLU 5-shot answered with a letter after
 * "Answer:". A preset is a raw-prompt deployment: its template, exemplars and stop strings are
 * written into the run's manifest like any other deployment, each exemplar with its provenance.
 * The exemplars are benchmark records (see README.md beside this file); they are not a train split,
 * so a question that is one of its prompt's exemplars is skipped (questionPipeline.ts).
 */
import { InputError } from '../../engine/errors';
import type { AnswerFormat, Question } from '../dataset/question';
import type { Deployment, FewShotExample } from '../probes/deployment';
import { exemplarQuestions, type ExemplarSet } from './exemplarSet';
import { GSM8K_EXEMPLARS } from './gsm8kExemplars';
import { MATH_EXEMPLARS } from './mathExemplars';
import { ARC_EXEMPLARS } from './arcExemplars';
import { MMLU_EXEMPLARS } from './mmluExemplars';
import { userMessage } from '../dataset/question';
import { PRESET_NAMES, type PresetName } from './presetNames';


export interface Preset {
  name: PresetName;
  /** The answer format of the benchmarks it is written for. */
  format: AnswerFormat;
  /** One line for --help. */
  summary: string;
  /** Raw text before the examples (MMLU's instruction line), or none. */
  preamble?: string;
  /** The raw template; `{question}` takes the question (for choice questions its options too). */
  template: string;
  exemplars: ExemplarSet;
  /** What follows the template for an exemplar: its worked answer. */
  answer(q: Question): string;
  stop: string[];
}

function rawField(q: Question, field: string): string {
  const v = q.raw[field];
  if (typeof v !== 'string') throw new InputError(`few-shot exemplar ${q.id}: expected a string field "${field}"`);
  return v;
}

export const PRESETS: Record<PresetName, Preset> = {
  'gsm8k-cot-8shot': {
    name: 'gsm8k-cot-8shot',
    format: 'gsm8k',
    summary: 'GSM8K, 8 worked solutions ending "#### N"; stop at "Question:"',
    template: 'Question: {question}\nAnswer:',
    exemplars: GSM8K_EXEMPLARS,
    answer: (q) => ` ${rawField(q, 'answer')}`,
    stop: ['Question:'],
  },
  'math-minerva-4shot': {
    name: 'math-minerva-4shot',
    format: 'boxed',
    summary: 'MATH in the Minerva format, 4 solutions with a boxed answer and a "Final Answer" line; stop at "Problem:"',
    template: 'Problem:\n{question}\n\nSolution:',
    exemplars: MATH_EXEMPLARS,
    // Minerva's closing line, with the answer as the solution boxes it.
    answer: (q) => `\n${rawField(q, 'solution')}\nFinal Answer: The final answer is $${q.gold}$. I hope it is correct.`,
    stop: ['Problem:'],
  },
  'arc-5shot': {
    name: 'arc-5shot',
    format: 'choice',
    summary: 'ARC, 5 questions with lettered options answered "Answer: X"; stop at a new line or "Question:"',
    template: 'Question: {question}\nAnswer:',
    exemplars: ARC_EXEMPLARS,
    answer: (q) => ` ${q.gold}`,
    stop: ['\n', 'Question:'],
  },
  'mmlu-5shot': {
    name: 'mmlu-5shot',
    format: 'choice',
    summary: 'MMLU, 5 questions with lettered options answered "Answer: X" after the MMLU instruction line; stop at a new line',
    preamble: 'The following are multiple choice questions (with answers).',
    template: '{question}\nAnswer:',
    exemplars: MMLU_EXEMPLARS,
    answer: (q) => ` ${q.gold}`,
    stop: ['\n'],
  },
};


export function presetNamed(name: string): Preset {
  if (!(PRESET_NAMES as readonly string[]).includes(name)) throw new InputError(`--preset ${name}: unknown preset; expected one of ${PRESET_NAMES.join(', ')}`);
  return PRESETS[name as PresetName];
}

/** The preset's worked examples as the deployment shows them. */
export function presetExamples(preset: Preset): FewShotExample[] {
  return exemplarQuestions(preset.exemplars).map(({ question, provenance }) => ({ user: userMessage(question), assistant: preset.answer(question), source: provenance }));
}

/**
 * The deployment of a preset: a raw prompt with the preset's template, preamble, examples and stop
 * strings (plus any stop strings of `base`); budget and decoding stay those of `base`.
 */
export function presetDeployment(name: string, base: Deployment): Deployment {
  const preset = presetNamed(name);
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
    stop: [...preset.stop, ...base.stop.filter((s) => !preset.stop.includes(s))],
  };
}

/** A preset is written for one answer format; a dataset of another is refused, naming both. */
export function checkPresetFormat(deployment: Deployment, format: AnswerFormat): void {
  if (!deployment.preset) return;
  const preset = presetNamed(deployment.preset);
  if (preset.format !== format) {
    throw new InputError(`--preset ${preset.name} is for ${preset.format}-format benchmarks; this dataset's answer format is ${format} (choose a preset for it: ${PRESET_NAMES.filter((n) => PRESETS[n].format === format).join(', ') || 'none yet'})`);
  }
}
