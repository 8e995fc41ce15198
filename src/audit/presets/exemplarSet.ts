/**
 * Worked examples for a few-shot prompt, kept as the benchmark lines they were copied from so
 * their provenance can be checked line for line (README.md beside this file says where each file
 * comes from and under which licence).
 */
import { InputError } from '../../common';
import { parseDataset, type Question } from '../dataset';

export interface ExemplarSet {
  /** The sample file the lines are copied from (test/fixtures/benchmarks/). */
  file: string;
  /** The benchmark, its paper and where it is published. */
  source: string;
  licence: string;
  /** 1-based line numbers in `file` and the lines' exact text (one benchmark record each). */
  lines: { line: number; text: string }[];
}

/** An exemplar as a question of its benchmark, with where it came from. */
export interface Exemplar {
  question: Question;
  /** `file:line (source; licence)`, recorded with the example in the run's manifest. */
  provenance: string;
}

/** Parses the exemplar lines with the dataset reader the audit uses for the benchmark itself. */
export function exemplarQuestions(set: ExemplarSet): Exemplar[] {
  const dataset = parseDataset(set.file, set.lines.map((l) => l.text).join('\n') + '\n');
  if (dataset.issues.length > 0 || dataset.questions.length !== set.lines.length) {
    throw new InputError(`few-shot exemplars from ${set.file}: ${dataset.issues.map((i) => i.message).join('; ') || 'a line did not parse'}`);
  }
  return dataset.questions.map((question, i) => ({ question, provenance: `${set.file}:${set.lines[i].line} (${set.source}; ${set.licence})` }));
}
