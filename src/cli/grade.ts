/**
 * `reach-audit grade`: how an answer is read. Grades one output (--output) or a JSONL file of them
 * (--outputs) with the function the audit uses, and prints per output the extracted answer, the
 * rule that found it, how it compared with the gold (the equality rule), the verdict and the
 * strict and flexible readings.
 */
import * as fs from 'node:fs';
import type { Command } from './command';
import { UsageError } from './command';
import { parseFlagsAndFolders } from './flags';
import { CORRECT_BY, DEFAULT_GRADING, DEFAULT_THINKING, grade, parseThinkingMarkers, TRUNCATED_RULES, type Grade } from '../audit/answers';
import type { AnswerMatch, GradingSettings } from '../contract';
import type { AnswerFormat, Choice, Question } from '../audit/dataset';

const FORMATS = ['gsm8k', 'boxed', 'choice', 'exact'] as const;
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

const help = [
  'Usage: reach-audit grade --format gsm8k|boxed|choice|exact [--gold G] [--choices JSON]',
  '                         (--output TEXT | --outputs FILE.jsonl) [--json]',
  '',
  'Shows how Reach Audit reads an answer, with the same code the audit grades by. Per output it',
  'prints {"answer", "rule", "match", "correct", "strict", "flexible"}: the extracted answer, the rule',
  'that found it, how it compared with the gold ({"rule", "note"?}: rational, number-word, normalized,',
  'units-stripped, unordered-set, symbolic (a computer-algebra check, time-bounded), label, text or',
  'different; the note says why the algebra check gave up), the verdict, and the strict reading (the',
  'answer marker only; lm-eval strict-match for GSM8K) and the flexible one (every fallback; lm-eval',
  'flexible-extract for GSM8K). The rules are in docs/design/grading.md.',
  'A reasoning model\'s thought is read apart: the answer is read after the last closing marker',
  '(`</think>`), and an output whose thought never closed is cut while thinking: no answer, not',
  'correct. "read" says which part was read: the whole output, after the thought (from character',
  'N), or nothing.',
  '',
  'Options:',
  '  --format F            answer format: gsm8k, boxed, choice, exact',
  '  --gold G              the gold answer (without it, "correct" is null)',
  '  --choices JSON        choice texts as a JSON array of strings, labelled A, B, C, …',
  '  --output TEXT         one model output',
  '  --outputs FILE        JSONL, one {"gold", "output", "choices"?, "truncated"?} per line; prints one',
  '                        JSON object per line',
  '  --truncated           the output hit the token limit (for --output)',
  "  --thinking-markers OPEN,CLOSE  the thought's markers (default '<think>,</think>')",
  '  --starts-in-thought   the prompt opened the thought (a template ending in <think>): the output',
  '                        starts inside it',
  `  --grade-truncated R   ${TRUNCATED_RULES.join('|')} (default ${DEFAULT_GRADING.truncated}); --correct-by V: ${CORRECT_BY.join('|')} (default ${DEFAULT_GRADING.correctBy})`,
  '  --json                print JSON (always for --outputs)',
].join('\n');

interface Case {
  gold: string | null;
  output: string;
  choices?: string[];
  truncated: boolean;
}

function choicesOf(texts: string[] | undefined): Choice[] | undefined {
  return texts?.map((text, i) => ({ label: LETTERS[i], text }));
}

function parseChoices(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.length < 2 || value.length > LETTERS.length || !value.every((x) => typeof x === 'string')) {
    throw new UsageError(`${where}: expected a JSON array of 2 to ${LETTERS.length} choice texts (strings)`);
  }
  return value as string[];
}

function readCases(file: string): Case[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--outputs ${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  const cases: Case[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const at = `${file}:${i + 1}`;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch {
      throw new UsageError(`${at}: not JSON; expected {"gold", "output", "choices"?}`);
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new UsageError(`${at}: expected a JSON object {"gold", "output", "choices"?}`);
    const o = obj as Record<string, unknown>;
    if (typeof o.output !== 'string') throw new UsageError(`${at}: field "output" must be a string`);
    if (o.gold !== undefined && o.gold !== null && typeof o.gold !== 'string' && typeof o.gold !== 'number') throw new UsageError(`${at}: field "gold" must be a string or number`);
    if (o.truncated !== undefined && typeof o.truncated !== 'boolean') throw new UsageError(`${at}: field "truncated" must be true or false`);
    cases.push({
      gold: o.gold === undefined || o.gold === null ? null : String(o.gold),
      output: o.output,
      ...(o.choices !== undefined ? { choices: parseChoices(o.choices, `${at}: field "choices"`) } : {}),
      truncated: o.truncated === true,
    });
  });
  return cases;
}

/** A reading as printed: `correct` is null when no gold was given. */
interface PrintedView {
  answer: string | null;
  correct: boolean | null;
}

interface Printed {
  answer: string | null;
  rule: string;
  /** How the answer compared with the gold; null without a gold or an answer. */
  match: AnswerMatch | null;
  correct: boolean | null;
  truncated: boolean;
  /** Which part was read: `whole`, `after-thought` (from character `from`), or `nothing` (cut while thinking). */
  read: { part: 'whole' | 'after-thought' | 'nothing'; from: number };
  strict: PrintedView;
  flexible: PrintedView;
}

function gradeCase(c: Case, format: AnswerFormat, grading: GradingSettings): Printed {
  const choices = choicesOf(c.choices);
  if (format === 'choice' && !choices) throw new UsageError('--format choice needs the choices (--choices, or "choices" on each --outputs line)');
  const q: Question = { id: 'output', line: 1, schema: 'generic', format, text: '', gold: c.gold ?? '', raw: {}, ...(choices ? { choices } : {}) };
  const g = grade(c.output, q, { truncated: c.truncated, grading });
  const known = c.gold !== null;
  const printed = (v: Grade['strict']): PrintedView => ({ answer: v.answer, correct: known ? v.correct : null });
  const part = g.thought === 'unfinished' ? 'nothing' : g.thought === 'finished' ? 'after-thought' : 'whole';
  return { answer: g.answer, rule: g.rule, match: known ? (g.match ?? null) : null, correct: known ? g.correct : null, truncated: g.truncated, read: { part, from: g.readFrom }, strict: printed(g.strict), flexible: printed(g.flexible) };
}

/** --thinking-markers and --starts-in-thought as grading settings; absent when neither is given. */
export function readThinking(values: { 'thinking-markers'?: string; 'starts-in-thought'?: boolean }): GradingSettings['thinking'] {
  if (values['thinking-markers'] === undefined && !values['starts-in-thought']) return undefined;
  const pair = values['thinking-markers'] === undefined ? DEFAULT_THINKING : { ...parseThinkingMarkers(values['thinking-markers']), from: 'flag' as const };
  return { open: pair.open, close: pair.close, from: pair.from, startsInThought: values['starts-in-thought'] === true };
}

export function readGrading(values: { 'grade-truncated'?: string; 'correct-by'?: string }): GradingSettings {
  const pick = <T extends string>(v: string | undefined, flag: string, allowed: readonly T[], fallback: T): T => {
    if (v === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(v)) throw new UsageError(`${flag} ${v}: expected one of ${allowed.join(', ')}`);
    return v as T;
  };
  return {
    correctBy: pick(values['correct-by'], '--correct-by', CORRECT_BY, DEFAULT_GRADING.correctBy),
    truncated: pick(values['grade-truncated'], '--grade-truncated', TRUNCATED_RULES, DEFAULT_GRADING.truncated),
  };
}

export const gradeCommand: Command = {
  help,
  async run(args) {
    const { values, positionals } = parseFlagsAndFolders(args, {
      format: { type: 'string' },
      gold: { type: 'string' },
      choices: { type: 'string' },
      output: { type: 'string' },
      outputs: { type: 'string' },
      truncated: { type: 'boolean' },
      'grade-truncated': { type: 'string' },
      'correct-by': { type: 'string' },
      'thinking-markers': { type: 'string' },
      'starts-in-thought': { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'; give the output with --output TEXT or --outputs FILE`);
    const format = values.format;
    if (!format || !(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format: expected one of ${FORMATS.join(', ')}${format ? `, got '${format}'` : ''}`);
    if ((values.output === undefined) === (values.outputs === undefined)) throw new UsageError('expected exactly one of --output TEXT and --outputs FILE.jsonl');
    const thinking = readThinking(values);
    const grading = { ...readGrading(values), ...(thinking ? { thinking } : {}) };
    let choices: string[] | undefined;
    if (values.choices !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(values.choices);
      } catch {
        throw new UsageError('--choices: not JSON; expected a JSON array of choice texts, e.g. ["red", "blue"]');
      }
      choices = parseChoices(parsed, '--choices');
    }
    if (values.output !== undefined) {
      const result = gradeCase({ gold: values.gold ?? null, output: values.output, ...(choices ? { choices } : {}), truncated: values.truncated === true }, format as AnswerFormat, grading);
      if (values.json) process.stdout.write(JSON.stringify(result) + '\n');
      else {
        const view = (v: PrintedView) => `${v.answer ?? '—'}${v.correct === null ? '' : v.correct ? ' (correct)' : ' (wrong)'}`;
        process.stdout.write(
          [
            `answer:   ${result.answer ?? '— (no rule matched)'}`,
            `rule:     ${result.rule}`,
            `match:    ${result.match === null ? '—' : `${result.match.rule}${result.match.note ? ` (${result.match.note})` : ''}`}`,
            `correct:  ${result.correct === null ? '— (no --gold)' : result.correct}${result.truncated ? ' (truncated output)' : ''}`,
            `read:     ${result.read.part === 'whole' ? 'the whole output' : result.read.part === 'after-thought' ? `after the thought (from character ${result.read.from})` : 'nothing: cut while thinking (the thought never closed)'}`,
            `strict:   ${view(result.strict)}`,
            `flexible: ${view(result.flexible)}`,
          ].join('\n') + '\n',
        );
      }
      return 0;
    }
    for (const c of readCases(values.outputs!)) {
      const result = gradeCase({ ...c, ...(c.choices || !choices ? {} : { choices }), gold: c.gold ?? values.gold ?? null }, format as AnswerFormat, grading);
      process.stdout.write(JSON.stringify(result) + '\n');
    }
    return 0;
  },
};
