import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summarize } from '../../../src/audit/results/summary';
import { interfaceFailureLines } from '../../../src/audit/report/summaryText';
import { recordsToCsv } from '../../../src/extension/panel/recordExport';
import { wilsonInterval, type QuestionRecord } from '../../../src/contract';

/** A record whose deployed output we grade `ours`, and the harness's strict reading `theirs` (null: no 0/1 verdict). */
function record(id: number, ours: boolean, theirs: boolean | null, harnessAnswer: string | null, ourAnswer: string | null): QuestionRecord {
  return {
    id: String(id),
    line: id,
    gold: '7',
    question: `q${id}`,
    realized: { output: `out ${id}`, answer: ourAnswer, correct: ours, truncated: false, rule: 'gsm8k-last-number', logprob: null, tokens: 0, cost: { generations: 1, tokens: 0, blockApplications: 0 } },
    probes: {},
    reachable: {},
    blind: {},
    harness: { prompt: `Question: q${id}\nAnswer:`, readings: { 'strict-match': { extracted: harnessAnswer, correct: theirs, scores: theirs === null ? {} : { exact_match: theirs ? 1 : 0 } } } },
  };
}

const RECORDS = [
  record(1, true, true, '7', '7'),
  record(2, true, false, '[invalid]', '7'), // missed: the answer is there by our rules
  record(3, true, false, '[invalid]', '7'), // missed
  record(4, false, false, '12', '12'),
  record(5, false, true, '7', '12'), // reverse: the harness counted a 7 that is not the stated answer
  record(6, true, null, null, '7'), // no 0/1 verdict: not counted
];

test('interface failures: questions the harness scored wrong whose gold our rules find, and the reverse, each over the questions it scored, with a Wilson interval', () => {
  const f = summarize(RECORDS).interfaceFailures!;
  const strict = f['strict-match'];
  assert.equal(strict.n, 5);
  assert.deepEqual([strict.missedRate.successes, strict.missedRate.n], [2, 3]);
  assert.deepEqual(strict.missedRate.ci, wilsonInterval(2, 3));
  assert.deepEqual([strict.reverseRate.successes, strict.reverseRate.n], [1, 2]);
  assert.deepEqual(strict.missed, [
    { id: '2', harness: '[invalid]', ours: '7' },
    { id: '3', harness: '[invalid]', ours: '7' },
  ]);
  assert.deepEqual(strict.reverse, [{ id: '5', harness: '7', ours: '12' }]);

  const lines = interfaceFailureLines(f);
  assert.match(lines[0], /harness strict-match \(n = 5\): it missed 2 answers that are in the output by our rules, of the 3 it scored wrong 66\.7%/);
  assert.match(lines[1], /question 2: harness "\[invalid\]", ours "7"; question 3: harness "\[invalid\]", ours "7"/);
  assert.match(lines[2], /of the 2 it scored right, our rules find 1 wrong 50\.0%/);

  // An audit's records carry no harness readings: no interface failures, and the summary has no such field.
  const audited = RECORDS.map(({ harness: _h, ...r }) => r);
  assert.equal('interfaceFailures' in summarize(audited), false);
});

test('the CSV export names each harness reading, its answer and verdict, and the interface failure; an audit keeps its columns', () => {
  const csv = recordsToCsv(RECORDS).split('\r\n');
  assert.equal(csv[0], 'id,line,question,gold,answer,rule,realized,failure_set,repaired_by_blocks,harness_strict-match_answer,harness_strict-match_correct,interface_failure_strict-match');
  assert.equal(csv[2], '2,2,q2,7,7,gsm8k-last-number,true,,,[invalid],false,missed');
  assert.equal(csv[5], '5,5,q5,7,12,gsm8k-last-number,false,,,7,true,reverse');
  assert.equal(csv[6], '6,6,q6,7,7,gsm8k-last-number,true,,,,,');
  const audited = recordsToCsv(RECORDS.map(({ harness: _h, ...r }) => r)).split('\r\n');
  assert.equal(audited[0], 'id,line,question,gold,answer,rule,realized,failure_set,repaired_by_blocks');
});
