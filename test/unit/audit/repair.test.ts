import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeRepair } from '../../../src/audit/repair/repairScan';
import type { QuestionRecord } from '../../../src/contract';
import { splitBySeededKey } from '../../../src/audit/repair/seededSplit';

function rec(i: number, inF: boolean, realized: boolean, correct: boolean[]): QuestionRecord {
  const cost = { generations: 0, tokens: 0, blockApplications: 0 };
  return {
    id: `q${i}`,
    line: i + 1,
    gold: '1',
    question: '',
    realized: { output: '', answer: null, correct: realized, truncated: false, rule: 'none', logprob: null, tokens: 0, cost },
    probes: {},
    reachable: {},
    blind: {},
    repair: {
      inFailureSet: inF,
      realized,
      correctBySilencedBlock: Object.fromEntries(correct.map((c, b) => [String(b), c])),
      answerBySilencedBlock: {},
      splitKey: (i * 2654435761) % 4294967296,
      cost,
    },
  };
}

test('l* is chosen on the selection half of F and scored on the held-out half, with damage on realized questions', () => {
  const records: QuestionRecord[] = [];
  // 10 failure-set questions: block 1 repairs all of them, block 0 repairs those with even index.
  for (let i = 0; i < 10; i++) records.push(rec(i, true, false, [i % 2 === 0, true, false]));
  // 4 realized questions: block 1 breaks one, block 0 none.
  for (let i = 10; i < 14; i++) records.push(rec(i, false, true, [true, i !== 10, true]));
  // Unreached, not scanned.
  records.push(rec(14, false, false, []));
  const r = analyzeRepair(records)!;
  assert.equal(r.failureSetSize, 10);
  assert.equal(r.selectionSize, 5);
  assert.equal(r.n, 5);
  assert.equal(r.identifiedBlock, 1);
  assert.equal(r.repairRate, 1);
  assert.equal(r.repaired, 5);
  assert.equal(r.damageRate, 0.25);
  assert.equal(r.damageN, 4);
  assert.deepEqual(r.byBlock.map((b) => b.repair.successes), [5, 10, 0]);
  assert.deepEqual(r.byBlock.map((b) => b.damage.successes), [0, 1, 0]);
  assert.equal(r.matrix.length, 14);
  const split = splitBySeededKey(records.slice(0, 10), (x) => ({ splitKey: x.repair!.splitKey, id: x.id }));
  assert.equal(split.selection.length + split.heldOut.length, 10);
});

test('no repair scan in the records: no repair summary', () => {
  assert.equal(analyzeRepair([]), undefined);
});
