/**
 * The grader against a careful human on held-out answer strings (test/fixtures/grading, how they
 * were judged in its README): per benchmark, the share of outputs on which `grade` gives the
 * human's verdict. Prints the agreement and every disagreement, and holds it at 95% or more.
 * The strings were written and judged before the rules they exercise, and are not to be tuned on:
 * a new rule is tested in gradeRules.test.ts, and this file only measures.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { grade } from '../../../src/audit/answers/grade';
import type { AnswerFormat, Question } from '../../../src/audit/question';

// Compiled tests run from out/test/unit/audit; the fixtures stay in the source tree.
const HELD_OUT = path.resolve(__dirname, '../../../../test/fixtures/grading');

interface Judged {
  gold: string;
  output: string;
  choices?: string[];
  truncated?: boolean;
  human: boolean;
  why: string;
}

const LABELS = 'ABCDEFGHIJ';
const MIN_AGREEMENT = 0.95;

for (const [file, format] of [['gsm8k.jsonl', 'gsm8k'], ['math.jsonl', 'boxed'], ['arc.jsonl', 'choice']] as const) {
  test(`held-out ${file}: the grader agrees with a careful human on at least ${MIN_AGREEMENT * 100}%`, (t) => {
    const rows = fs.readFileSync(path.join(HELD_OUT, file), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Judged);
    const misses: string[] = [];
    for (const [i, row] of rows.entries()) {
      const choices = row.choices?.map((text, k) => ({ label: LABELS[k], text }));
      const q: Question = { id: `${file}:${i + 1}`, line: i + 1, schema: 'generic', format: format as AnswerFormat, text: '', gold: row.gold, raw: {}, ...(choices ? { choices } : {}) };
      const g = grade(row.output, q, { truncated: row.truncated === true });
      if (g.correct !== row.human) misses.push(`line ${i + 1} (${row.why}): grader ${g.correct} via ${g.rule} [${g.answer}], human ${row.human}`);
    }
    const agree = rows.length - misses.length;
    const share = agree / rows.length;
    const summary = `held-out ${file}: agreement ${agree}/${rows.length} = ${(share * 100).toFixed(1)}%`;
    t.diagnostic(summary);
    for (const m of misses) t.diagnostic(`  ${m}`);
    assert.ok(share >= MIN_AGREEMENT, `${summary}\n${misses.join('\n')}`);
  });
}
