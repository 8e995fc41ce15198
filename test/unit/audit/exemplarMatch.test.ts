/**
 * The exemplar skip matches a question to its prompt's examples by a hash of the normalized text:
 * constructed near-duplicates (case, spacing, punctuation, full-width forms) are skipped; a
 * question that differs in a word or a number is asked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchesExample, normalizedText, normalizedTextHash } from '../../../src/audit/probes/exemplarMatch';
import { DEFAULT_DEPLOYMENT, isFewShotExample } from '../../../src/audit/probes/deployment';
import { presetDeployment } from '../../../src/audit/presets/presets';
import type { Question } from '../../../src/audit/question';

const EXAMPLE = 'If there are 3 cars in the parking lot and 2 more cars arrive, how many cars are in the parking lot?';
const gsm8k = (text: string): Question => ({ id: 'q', line: 1, schema: 'gsm8k', format: 'gsm8k', text, gold: '5', raw: {} });

test('normalized text drops case, whitespace and punctuation; the hash is of that text', () => {
  assert.equal(normalizedText('  Hello,\tWorld!\n'), 'helloworld');
  assert.equal(normalizedTextHash('A b.'), normalizedTextHash('ab'));
  assert.notEqual(normalizedTextHash('ab'), normalizedTextHash('abc'));
});

test('near-duplicates of an example are recognised; other questions are not', () => {
  const near = [
    EXAMPLE,
    EXAMPLE.toUpperCase(),
    EXAMPLE.replace(/ /g, '  ').replace('lot and', 'lot\nand'),
    EXAMPLE.replace(',', '').replace('?', ''),
    ` ${EXAMPLE.replace('cars arrive', 'cars arrive;')} `,
    EXAMPLE.replace('3', '\uFF13'), // full-width digit three
    EXAMPLE.replace("?", '…?'),
  ];
  for (const text of near) assert.ok(matchesExample(text, [EXAMPLE]), JSON.stringify(text));
  const other = [EXAMPLE.replace('3 cars', '4 cars'), EXAMPLE.replace('arrive', 'leave'), EXAMPLE.slice(0, 40), `${EXAMPLE} Then 1 leaves.`];
  for (const text of other) assert.ok(!matchesExample(text, [EXAMPLE]), JSON.stringify(text));
});

test("a test question that is a near-duplicate of one of the preset's published exemplars is the prompt's example", () => {
  const d = presetDeployment('gsm8k-cot-8shot', DEFAULT_DEPLOYMENT);
  assert.ok(isFewShotExample(d, gsm8k('if there are 3 cars in the parking lot, and 2 more cars arrive how many cars are in the parking lot')));
  assert.ok(isFewShotExample(d, gsm8k('Olivia has $23 - she bought five bagels for $3 each; how much money does she have left')));
  assert.ok(!isFewShotExample(d, gsm8k('Olivia has $24. She bought five bagels for $3 each. How much money does she have left?')));
});
