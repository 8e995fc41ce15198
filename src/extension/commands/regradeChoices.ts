/**
 * Regrade Run…: the grading choices `reach-audit regrade` takes, as pickers (the default first, the
 * run's own marked), the command line they make, and what its output says — how many verdicts
 * changed, or what is missing and how to give it. Pure: no vscode, no file system.
 */
import { CORRECT_BY, DEFAULT_GRADING, TRUNCATED_RULES } from '../../audit/answers';
import type { GradingSettings } from '../../contract';

export type TruncatedRule = GradingSettings['truncated'];
export type CorrectBy = GradingSettings['correctBy'];

export interface RegradeChoice {
  gradeTruncated: TruncatedRule;
  correctBy: CorrectBy;
  /** `OPEN,CLOSE`; absent: the run's own markers. */
  thinkingMarkers?: string;
  /** The dataset (or log) where it moved. */
  data?: string;
  /** A regex-format run's prediction pattern. */
  pattern?: string;
}

export interface ChoiceItem<T extends string> {
  label: string;
  description: string;
  value: T;
}

const TRUNCATED_TEXT: Record<TruncatedRule, string> = {
  strict: 'an output cut at the token limit is correct only with an answer marker (#### N, \\boxed{…}, Answer: X)',
  lenient: 'an output cut at the token limit is graded like any other',
};

const CORRECT_BY_TEXT: Record<CorrectBy, string> = {
  stated: 'the stated answer, else the last number',
  strict: 'the answer marker only (lm-eval strict-match for GSM8K)',
  flexible: 'every fallback (lm-eval flexible-extract for GSM8K)',
};

function ordered<T extends string>(values: readonly T[], fallback: T): T[] {
  return [fallback, ...values.filter((v) => v !== fallback)];
}

function mark<T extends string>(value: T, fallback: T, current: T | undefined): string {
  const notes = [value === fallback ? 'default' : '', value === current ? "this run's" : ''].filter(Boolean);
  return notes.length > 0 ? ` (${notes.join(', ')})` : '';
}

/** The rule for outputs cut at the token limit: the default first; the run's own marked. */
export function truncatedItems(current: TruncatedRule | undefined): ChoiceItem<TruncatedRule>[] {
  return ordered(TRUNCATED_RULES, DEFAULT_GRADING.truncated).map((value) => ({ label: value, description: `${TRUNCATED_TEXT[value]}${mark(value, DEFAULT_GRADING.truncated, current)}`, value }));
}

/** The reading that defines correct: the default first; the run's own marked. */
export function correctByItems(current: CorrectBy | undefined): ChoiceItem<CorrectBy>[] {
  return ordered(CORRECT_BY, DEFAULT_GRADING.correctBy).map((value) => ({ label: value, description: `${CORRECT_BY_TEXT[value]}${mark(value, DEFAULT_GRADING.correctBy, current)}`, value }));
}

/** What runHasThoughts reads of a record (a QuestionRecord is one): whether its outputs had a thought. */
export interface ThoughtsOf {
  realized: { thought?: unknown };
  probes?: Readonly<Record<string, { attempts?: readonly { thought?: unknown }[] }>>;
}

/** Some output of the run had a thought (a reasoning model), or its markers were the tokenizer's or given: the markers are worth asking. */
export function runHasThoughts(thinking: GradingSettings['thinking'], records: readonly ThoughtsOf[]): boolean {
  if (thinking && thinking.from !== 'default') return true;
  return records.some((r) => r.realized.thought !== undefined || Object.values(r.probes ?? {}).some((p) => p.attempts?.some((a) => a.thought !== undefined)));
}

/** `OPEN,CLOSE` typed by the user: undefined when well formed, else what is wrong. */
export function markersProblem(text: string): string | undefined {
  const parts = text.split(',');
  if (parts.length !== 2 || parts.some((p) => p.trim() === '')) return 'Two markers separated by a comma, e.g. <think>,</think>';
  if (parts[0].trim() === parts[1].trim()) return 'The opening and closing markers must differ';
  return undefined;
}

/** The `reach-audit regrade` arguments (after the CLI's path). Both rules are given: regrade's defaults are not the run's. */
export function regradeArgs(runDir: string, out: string, choice: RegradeChoice): string[] {
  const args = ['regrade', runDir, '--out', out, '--grade-truncated', choice.gradeTruncated, '--correct-by', choice.correctBy];
  if (choice.thinkingMarkers) args.push('--thinking-markers', choice.thinkingMarkers);
  if (choice.data) args.push('--data', choice.data);
  if (choice.pattern) args.push('--pattern', choice.pattern);
  return args;
}

/** What a finished regrade says (its stderr): the counts of changed verdicts, and whether the repair scan went stale. */
export function regradeOutcomeText(stderr: string): { changed?: number; text: string } {
  const m = /: (\d+) verdicts? changed; realized changed on (\d+) questions?; reachable changed on ([^.\n]*)\./.exec(stderr);
  const stale = /repair scan is STALE/.test(stderr) ? ' The repair scan is stale (it was measured for the failure set before): audit again with the repair scan to measure it.' : '';
  if (!m) return { text: `regraded.${stale}` };
  const changed = Number(m[1]);
  const realized = Number(m[2]);
  const reachable = m[3].trim();
  if (changed === 0) return { changed, text: `no verdict changed.${stale}` };
  const parts = [`realized on ${realized} question${realized === 1 ? '' : 's'}`];
  if (reachable !== 'none') parts.push(`reachable on ${reachable}`);
  return { changed, text: `${changed} verdict${changed === 1 ? '' : 's'} changed (${parts.join('; ')}).${stale}` };
}

/** A failed regrade: its message (regrade's last word, without the program's prefix) and what the user can give to fix it. */
export function regradeFailure(stderr: string, code: number): { message: string; fix?: 'data' | 'log' | 'pattern' } {
  const line = stderr.trim().split('\n').filter((l) => l.startsWith('reach-audit')).pop();
  const message = line ? line.replace(/^reach-audit( regrade)?: /, '') : `reach-audit regrade exited with ${code}`;
  if (/is a regex-format run: give its prediction pattern/.test(message)) return { message, fix: 'pattern' };
  if (/the run's log is not there|not the log this run imported/.test(message)) return { message, fix: 'log' };
  if (/the run's dataset is not there|not the dataset this run audited/.test(message)) return { message, fix: 'data' };
  return { message };
}
