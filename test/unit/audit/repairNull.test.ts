/**
 * The repair null against independent computations: the random-block rate as a mean of per-question
 * shares, the exact one-sided p by enumerating every outcome of a random block per question (not the
 * Poisson-binomial recursion), the truncation split and the net effect counted by hand.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeRepair } from '../../../src/audit/repair/repairScan';
import { formatSummary } from '../../../src/audit/report/summaryText';
import { summarize } from '../../../src/audit/results/summary';
import type { QuestionRecord } from '../../../src/contract';
import { deployed, repairScan, testRecord } from '../../support/questionRecord';

const BLOCKS = 4;

/** F questions: selection half (splitKey < 0.5) all repaired by block 2; held-out given per question. */
function runRecords(heldOut: { repairedBy: number[]; truncated: boolean }[]): QuestionRecord[] {
  const out: QuestionRecord[] = [];
  const scan = (inF: boolean, realized: boolean, repairedBy: number[], splitKey: number) => ({
    ...repairScan(inF, realized, Object.fromEntries(Array.from({ length: BLOCKS }, (_, b) => [String(b), repairedBy.includes(b)]))),
    splitKey,
  });
  // Selection half first (keys 0.1..): block 2 repairs every one, so it is identified.
  heldOut.forEach((_, i) => out.push(testRecord(`s${i}`, out.length + 1, { realized: deployed(false), reachable: { sample: true }, repair: scan(true, false, [2], 0.1 + i * 0.001) })));
  heldOut.forEach((h, i) => out.push(testRecord(`h${i}`, out.length + 1, { realized: { ...deployed(false), truncated: h.truncated }, reachable: { sample: true }, repair: scan(true, false, h.repairedBy, 0.6 + i * 0.001) })));
  // Realized questions: block 2 breaks the first two of five (correct under every other block).
  for (let i = 0; i < 5; i++) out.push(testRecord(`r${i}`, out.length + 1, { realized: deployed(true), reachable: { sample: true }, repair: scan(false, true, i < 2 ? [0, 1, 3] : [0, 1, 2, 3], 0.5) }));
  return out;
}

test('repair null: random-block rate, exact p by enumeration, truncation split and net effect', () => {
  const heldOut = [
    { repairedBy: [2], truncated: false },
    { repairedBy: [0, 1, 2, 3], truncated: true },
    { repairedBy: [1, 2], truncated: false },
    { repairedBy: [], truncated: true },
    { repairedBy: [0, 2], truncated: false },
    { repairedBy: [3], truncated: false },
  ];
  const summary = analyzeRepair(runRecords(heldOut))!;
  assert.equal(summary.identifiedBlock, 2);
  assert.equal(summary.n, 6);
  assert.equal(summary.repaired, 4, 'block 2 repairs h0, h1, h2, h4');
  const nullModel = summary.null!;
  const shares = heldOut.map((h) => h.repairedBy.length / BLOCKS);
  const mean = shares.reduce((s, x) => s + x, 0) / shares.length;
  assert.ok(Math.abs(nullModel.randomBlock.rate - mean) < 1e-12);
  // Six held-out questions: too few for a percentile bootstrap, so no interval (the exact p stands).
  assert.deepEqual([nullModel.randomBlock.lo, nullModel.randomBlock.hi, nullModel.difference.lo, nullModel.difference.hi], [null, null, null, null]);
  assert.ok(Math.abs(nullModel.difference.estimate - (4 / 6 - mean)) < 1e-12);
  // Median over blocks of held-out repair rates: block 0 2/6, 1 2/6, 2 4/6, 3 2/6 → 2/6.
  assert.ok(Math.abs(nullModel.medianBlock - 2 / 6) < 1e-12);
  // Exact p: every one of the 2^6 outcomes of a random block per question, P(repairs ≥ 4).
  let p = 0;
  for (let mask = 0; mask < 1 << shares.length; mask++) {
    let prob = 1;
    let hits = 0;
    shares.forEach((q, i) => {
      const hit = (mask >> i) & 1;
      prob *= hit ? q : 1 - q;
      hits += hit;
    });
    if (hits >= 4) p += prob;
  }
  assert.ok(Math.abs(nullModel.pValue - p) < 1e-12, `${nullModel.pValue} vs ${p}`);
  // Truncated deployments h1, h3: block 2 repairs h1 only; not truncated h0, h2, h4, h5: three of four.
  assert.deepEqual([nullModel.byTruncation.truncated.successes, nullModel.byTruncation.truncated.n], [1, 2]);
  assert.deepEqual([nullModel.byTruncation.notTruncated.successes, nullModel.byTruncation.notTruncated.n], [3, 4]);
  // Net effect over held-out F (6) and realized (5): 4 repaired, 2 broken.
  const e = nullModel.netEffect;
  assert.deepEqual([e.n, e.gained, e.lost], [11, 4, 2]);
  assert.ok(Math.abs(e.delta - 2 / 11) < 1e-12);
  assert.equal(e.decision?.verdict, 'inconclusive');
});

test('repair null: a block no better than the rest is not called better than random', () => {
  // Every held-out question is repaired by every block: the identified block equals the null.
  const summary = analyzeRepair(runRecords(Array.from({ length: 8 }, () => ({ repairedBy: [0, 1, 2, 3], truncated: false }))))!;
  assert.equal(summary.null!.randomBlock.rate, 1);
  assert.equal(summary.null!.difference.estimate, 0);
  assert.equal(summary.null!.pValue, 1, 'a random block repairs all 8 for certain');
});

test('repair null: the bootstrap intervals from 20 held-out questions on', () => {
  const heldOut = Array.from({ length: 20 }, (_, i) => ({ repairedBy: i % 2 === 0 ? [2] : [0, 1], truncated: false }));
  const nullModel = analyzeRepair(runRecords(heldOut))!.null!;
  assert.equal(analyzeRepair(runRecords(heldOut))!.n, 20);
  const { rate, lo, hi } = nullModel.randomBlock;
  assert.ok(lo !== null && hi !== null && lo <= rate && rate <= hi, `${lo} ≤ ${rate} ≤ ${hi}`);
  assert.ok(nullModel.difference.lo !== null && nullModel.difference.lo <= nullModel.difference.estimate);
  const text = formatSummary({ ...summarize(runRecords(heldOut.slice(0, 6))) });
  assert.match(text, /identified − random \+12\.5 pts \(no bootstrap interval below 20 questions\); exact one-sided \(Poisson-binomial\) p = /);
});
