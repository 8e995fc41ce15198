/**
 * The published GSM8K chain-of-thought and Minerva MATH exemplars, read from the data files as the
 * presets read them: the count, the fields, the source named with its commit and licence, the text
 * unchanged since it was copied (SHA-256 recorded in PUBLISHED-PROVENANCE.md, and the published
 * quirks kept), and each worked answer in the final-answer form the preset's grader reads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { grade } from '../../../src/audit/answers/grade';
import type { AnswerFormat, Question } from '../../../src/audit/question';

const dir = path.resolve(__dirname, '../../../../src/audit/presets');
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as { preset: string; source: Record<string, string>; licence: string; examples: Record<string, string>[] };
const provenance = fs.readFileSync(path.join(dir, 'PUBLISHED-PROVENANCE.md'), 'utf8');
const COMMIT = '4e7e0d47f33bc71070c1d38394bafbb52b117163';
const question = (format: AnswerFormat, gold: string): Question => ({ id: 'x', line: 1, schema: 'generic', format, text: '', gold, raw: {} });

function checkSource(file: string, preset: string, sourcePath: string, count: number, fields: [string, string]) {
  const data = read(file);
  assert.equal(data.preset, preset);
  assert.deepEqual({ repository: data.source.repository, path: data.source.path, commit: data.source.commit }, { repository: 'https://github.com/EleutherAI/lm-evaluation-harness', path: sourcePath, commit: COMMIT });
  assert.ok(data.licence.startsWith('MIT License\n\nCopyright (c) 2020 EleutherAI\n\nPermission is hereby granted, free of charge'));
  assert.ok(provenance.includes(data.licence), 'PUBLISHED-PROVENANCE.md carries the same licence text');
  for (const s of [file, sourcePath, COMMIT, data.source.blob]) assert.ok(provenance.includes(s), `PUBLISHED-PROVENANCE.md names ${s}`);
  assert.equal(data.examples.length, count);
  for (const ex of data.examples) {
    assert.deepEqual(Object.keys(ex), fields);
    for (const f of fields) assert.ok(typeof ex[f] === 'string' && ex[f].trim() !== '', `${file}: ${f}`);
  }
  const sha = createHash('sha256').update(JSON.stringify(data.examples)).digest('hex');
  assert.ok(provenance.includes(`\`${file}\`: \`${sha}\``), `${file}: the examples' SHA-256 ${sha} is the one recorded when they were copied`);
  return data.examples;
}

test('GSM8K: the 8 chain-of-thought exemplars of gsm8k-cot.yaml, each ending "The answer is N." as the harness\'s strict regex and our grader read it', () => {
  const examples = checkSource('gsm8k-cot-8shot.json', 'gsm8k-cot-8shot', 'lm_eval/tasks/gsm8k/gsm8k-cot.yaml', 8, ['question', 'target']);
  // Wei et al.'s first exemplar, byte for byte (YAML's folded lines joined by one space).
  assert.equal(examples[0].question, 'There are 15 trees in the grove. Grove workers will plant trees in the grove today. After they are done, there will be 21 trees. How many trees did the grove workers plant today?');
  assert.equal(examples[7].target, 'Olivia had 23 dollars. 5 bagels for 3 dollars each will be 5 x 3 = 15 dollars. So she has 23 - 15 dollars left. 23 - 15 is 8. The answer is 8.');
  const golds = examples.map((ex) => {
    // The harness's strict-match filter: "The answer is (\-?[0-9\.\,]+)."
    const m = /The answer is (-?[0-9.,]+)\./.exec(ex.target);
    assert.ok(m, ex.target);
    const g = grade(` ${ex.target}`, question('gsm8k', m[1]));
    assert.ok(g.correct, `read ${g.answer} by ${g.rule}, gold ${m[1]}`);
    return m[1];
  });
  assert.deepEqual(golds, ['6', '5', '39', '8', '9', '29', '33', '8']);
});

test('MATH: Minerva\'s 4 exemplars of minerva_math/utils.py, each boxing its answer and closing "Final Answer: The final answer is $X$. I hope it is correct."', () => {
  const examples = checkSource('math-minerva-4shot.json', 'math-minerva-4shot', 'lm_eval/tasks/minerva_math/utils.py', 4, ['problem', 'solution']);
  // The published text's quirks are kept, not corrected.
  assert.ok(examples[0].problem.endsWith('$\\frac{\\sqrt{x-2}}{\\sqrt{5-x}}$.}'));
  assert.ok(examples[2].solution.includes('30n&=480\\\n\\Rightarrow'));
  const golds = examples.map((ex) => {
    const m = /\nFinal Answer: The final answer is \$(.+)\$\. I hope it is correct\.$/.exec(ex.solution);
    assert.ok(m, ex.solution);
    assert.ok(ex.solution.includes(`\\boxed{${m[1]}}`), `the boxed answer is the Final Answer's: ${m[1]}`);
    const g = grade(` ${ex.solution}`, question('boxed', m[1]));
    assert.ok(g.correct, `read ${g.answer} by ${g.rule}, gold ${m[1]}`);
    return m[1];
  });
  assert.deepEqual(golds, ['[2,5)', '24', '16', '-\\frac{2}{3}']);
});
