/**
 * Walkthrough defect 6: Run Reachability Audit had no "first N questions" choice (the CLI's
 * --limit), and its plan counted global-route generations that the probe picker never offered.
 * The picker now asks how many questions and which answer-blind selectors, and global-route says
 * what it costs, in the plan's words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countJsonLines, limitItems, limitProblem, routeBudgetOf, selectorItems } from '../../../src/extension/commands/auditScope';

test('questions: all of the file, the first 20 or 100, or a typed N', () => {
  assert.deepEqual(limitItems(300, undefined).map((i) => [i.label, i.limit]), [['All 300 questions', undefined], ['First 20', 20], ['First 100', 100], ['First N…', undefined]]);
  // A file shorter than a preset does not offer it.
  assert.deepEqual(limitItems(50, undefined).map((i) => i.label), ['All 50 questions', 'First 20', 'First N…']);
  // An uncounted file (a JSON array) still offers every choice.
  assert.equal(limitItems(undefined, undefined)[0].label, 'All questions');
  assert.equal(limitItems(undefined, undefined).at(-1)?.custom, true);
});

test('the last choice leads, so Enter repeats it', () => {
  const items = limitItems(300, 8);
  assert.deepEqual(items.slice(0, 2).map((i) => i.label), ['First 8', 'All 300 questions']);
  assert.match(items[0].description ?? '', /question by question/);
  assert.equal(limitItems(300, 100).filter((i) => i.label === 'First 100').length, 1, 'not offered twice');
});

test('a typed N: a whole number, at most the file\'s questions', () => {
  assert.equal(limitProblem('12'), undefined);
  assert.equal(limitProblem(' 12 ', 300), undefined);
  assert.match(limitProblem('0') ?? '', /whole number/);
  assert.match(limitProblem('1.5') ?? '', /whole number/);
  assert.match(limitProblem('400', 300) ?? '', /has 300 questions/);
});

test('a JSON-lines file is counted by its non-blank lines; other formats are not counted', () => {
  assert.equal(countJsonLines('{"a":1}\n\n{"a":2}\n', 'x.jsonl'), 2);
  assert.equal(countJsonLines('[{"a":1}]', 'x.json'), undefined);
});

test('global-route is offered with the route probe, costing the route budget per question — the plan\'s "global-routes B"', () => {
  const items = selectorItems(undefined, routeBudgetOf(['sample:16', 'routes:16', 'search:16']));
  // learned-route is offered beside it, not picked unless asked for (it records features per question).
  assert.deepEqual(items.map((i) => [i.label, i.picked]), [['majority', true], ['confidence', true], ['global-route', true], ['learned-route', false]]);
  const global = items[2];
  assert.equal(global.description, '+16 generations per question');
  // The plan names its stages "<stage> <generations>" (estimateText); this one is the pool's.
  assert.ok(global.detail.includes('"global-routes 16"'), global.detail);
});

test('no route probe: no global-route (it picks among routes); a remembered choice is kept', () => {
  assert.deepEqual(selectorItems(undefined, routeBudgetOf(['sample:8'])).map((i) => i.label), ['majority', 'confidence']);
  assert.deepEqual(selectorItems(['majority'], 8).map((i) => i.picked), [true, false, false, false]);
  assert.equal(routeBudgetOf(['routes:8', 'search:4']), 8);
  assert.equal(routeBudgetOf([]), 0);
});
