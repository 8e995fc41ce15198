/**
 * What a run folder's records must hold as a set, checked by every reader that counts them (table,
 * compare, trajectory, regrade): each question once, every question of a finished run, and each
 * probe's attempts within its budget. One record line is validated on its own (runFileValidation);
 * a duplicated or deleted line passes that check and would count a question twice or drop it, so
 * n and every rate would be wrong without a word.
 */
import * as path from 'node:path';
import { InputError } from '../../common';
import type { GradedOutput, GradingSettings, QuestionRecord, RunManifest } from '../../contract';
import { DEFAULT_GRADING, grade } from '../answers';
import type { Question } from '../dataset';
import { RECORDS_FILE } from './runStore';

const DAMAGED = 'the file was edited or damaged';

export function checkRecordSet(folder: string, manifest: RunManifest, records: readonly QuestionRecord[], finished: boolean): void {
  const file = path.join(folder, RECORDS_FILE);
  const seen = new Map<string, number>();
  records.forEach((r, i) => {
    const first = seen.get(r.id);
    if (first !== undefined) throw new InputError(`${file}: question ${JSON.stringify(r.id)} is recorded twice (records ${first + 1} and ${i + 1}); ${DAMAGED}`);
    seen.set(r.id, i);
  });
  const expected = manifest.dataset.questions;
  if (finished && records.length !== expected) {
    throw new InputError(`${file}: holds ${records.length} questions, but the run finished all ${expected} it selected (${path.basename(folder)}/manifest.json); ${DAMAGED}`);
  }
  if (!finished && records.length > expected) {
    throw new InputError(`${file}: holds ${records.length} questions, more than the ${expected} the run selected; ${DAMAGED}`);
  }
  const budgets = new Map<string, number>(manifest.probes.map((p) => [p.name, p.budget]));
  for (const r of records) {
    if (r.skipped) continue;
    for (const [name, result] of Object.entries(r.probes)) {
      const budget = budgets.get(name);
      const where = `${file}: question ${JSON.stringify(r.id)}, probe ${name}`;
      if (budget === undefined) throw new InputError(`${where}: the run did not run this probe (${path.basename(folder)}/manifest.json); ${DAMAGED}`);
      if (result.budget !== budget) throw new InputError(`${where}: budget ${result.budget}, but the run's is ${budget}; ${DAMAGED}`);
      // Samples always fill the budget; route probes may find fewer distinct routes on a small model.
      const fewest = name === 'sample' && !result.untilReached ? budget : Math.min(1, budget);
      if (result.attempts.length < fewest || result.attempts.length > budget) {
        throw new InputError(`${where}: ${result.attempts.length} attempts for a budget of ${budget}; ${DAMAGED}`);
      }
      if ((result.untilReached === true) !== (manifest.untilReached === true)) {
        throw new InputError(`${where}: ${result.untilReached ? 'stopped at its first correct attempt' : 'spent its whole budget'}, but the run ${manifest.untilReached ? 'was' : 'was not'} made with --until-reached; ${DAMAGED}`);
      }
      // Under --until-reached only the last attempt may be correct: attempts stop at the first hit.
      if (result.untilReached && result.correct.slice(0, -1).some((c) => c)) {
        throw new InputError(`${where}: attempts go on after a correct one, but the run stops at the first (--until-reached); ${DAMAGED}`);
      }
      if (result.correct.length !== result.attempts.length) {
        throw new InputError(`${where}: ${result.correct.length} verdicts for ${result.attempts.length} attempts; ${DAMAGED}`);
      }
    }
  }
}

/**
 * The records hold the dataset's questions as the run read them: each id in the dataset, at its
 * line, with its gold. A gold edited in records.jsonl would otherwise change every verdict's
 * meaning without a trace (merge, regrade). Returns the problems, one per question.
 */
export function recordsVsDataset(recordsFile: string, datasetFile: string, records: readonly QuestionRecord[], questions: readonly Question[]): string[] {
  const byId = new Map(questions.map((q) => [q.id, q]));
  const problems: string[] = [];
  for (const r of records) {
    const q = byId.get(r.id);
    const where = `${recordsFile}: question ${JSON.stringify(r.id)}`;
    if (!q) problems.push(`${where} is not in ${datasetFile}`);
    else if (q.gold !== r.gold) problems.push(`${where} has gold ${JSON.stringify(r.gold)}, ${datasetFile}:${q.line} has ${JSON.stringify(q.gold)}`);
    else if (q.line !== r.line) problems.push(`${where} is at line ${r.line}, ${datasetFile} has it at line ${q.line}`);
  }
  return problems;
}

/** Questions named per shard when their verdicts disagree with their outputs (the rest are counted). */
const VERDICTS_NAMED = 5;

/**
 * The verdicts a record holds are the ones its stored outputs get under the run's grading settings
 * (`grade`, as the audit graded them), and its reach follows from them: a verdict flipped in
 * records.jsonl would otherwise pass into a merged run's rates unseen. Returns the problems, one
 * per question (the first few named, the rest counted). Runs of the regex format are not graded
 * again: their --pattern is not recorded.
 */
export function verdictsVsOutputs(recordsFile: string, records: readonly QuestionRecord[], questions: readonly Question[], grading: GradingSettings | undefined): string[] {
  const byId = new Map(questions.map((q) => [q.id, q]));
  const wrong: string[] = [];
  for (const r of records) {
    const q = byId.get(r.id);
    if (!q || r.skipped || q.format === 'regex') continue;
    const problem = recordVerdictProblem(r, q, grading ?? DEFAULT_GRADING);
    if (problem) wrong.push(`${recordsFile}: question ${JSON.stringify(r.id)}: ${problem}; ${DAMAGED}, or graded under other rules (reach-audit regrade it first)`);
  }
  return wrong.length > VERDICTS_NAMED ? [...wrong.slice(0, VERDICTS_NAMED), `${recordsFile}: and ${wrong.length - VERDICTS_NAMED} more questions whose verdicts differ from their outputs'`] : wrong;
}

/** The first verdict of `r` that its output does not give, in words; undefined when all agree. */
function recordVerdictProblem(r: QuestionRecord, q: Question, grading: GradingSettings): string | undefined {
  const differs = (o: GradedOutput) => grade(o.output, q, { truncated: o.truncated, grading }).correct !== o.correct;
  const verdict = (o: GradedOutput) => (o.correct ? 'correct' : 'wrong');
  if (differs(r.realized)) return `the deployed output is recorded ${verdict(r.realized)}, but it grades ${r.realized.correct ? 'wrong' : 'correct'}`;
  for (const [name, result] of Object.entries(r.probes)) {
    const i = result.attempts.findIndex((a, k) => differs(a) || result.correct[k] !== a.correct);
    if (i >= 0) return `probe ${name}, attempt ${i + 1}, is recorded ${verdict(result.attempts[i])}, but it grades otherwise`;
    if ((r.reachable[name] === true) !== result.attempts.some((a) => a.correct)) return `probe ${name} is recorded ${r.reachable[name] ? 'reaching' : 'not reaching'} the answer, but its attempts say otherwise`;
  }
  return undefined;
}

