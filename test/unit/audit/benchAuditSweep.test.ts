/**
 * The audit sweep's arithmetic (benchAuditSweep.ts): its lists, the order the cells run in, which
 * cell each is held to, and the report naming the cells that are not flat.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { UsageError } from '../../../src/cli/command';
import { auditSweepText, parseSweepList, ratiosToReference, referenceSize, rotatedOrder, type AuditSweepCell, type AuditSweepFigures } from '../../../src/bench/benchAuditSweep';
import type { AuditProfile } from '../../../src/bench/benchAudit';

describe('bench --audit sweep', () => {
  it('reads a list sorted, and names the flag and the entry for 0, a non-number, an empty entry or a duplicate', () => {
    assert.deepEqual(parseSweepList('64, 8,16,32', '--audit-sizes'), [8, 16, 32, 64]);
    assert.deepEqual(parseSweepList('4', '--audit-budgets'), [4]);
    const bad: [string, RegExp][] = [
      ['8,0', /--audit-sizes: entry 2 \('0'\) is not a whole number >= 1/],
      ['8,x', /--audit-sizes: entry 2 \('x'\)/],
      ['8,,16', /--audit-sizes: entry 2 \(''\)/],
      ['', /--audit-sizes: entry 1 \(''\)/],
      ['1.5', /--audit-sizes: entry 1 \('1.5'\)/],
      ['-4', /--audit-sizes: entry 1/],
      ['8,16,8', /--audit-sizes: 8 appears twice/],
    ];
    for (const [value, message] of bad) assert.throws(() => parseSweepList(value, '--audit-sizes'), (e: unknown) => e instanceof UsageError && message.test(e.message), value);
  });

  it('holds each size to 16 questions where 16 is swept, else to the smallest', () => {
    assert.equal(referenceSize([8, 16, 32, 64]), 16);
    assert.equal(referenceSize([2, 4]), 2);
    assert.equal(referenceSize([32, 64]), 32);
  });

  it('runs every cell once a round, starting one cell later each round', () => {
    const rounds = [0, 1, 2, 3, 4].map((r) => rotatedOrder(4, r));
    for (const order of rounds) assert.deepEqual([...order].sort(), [0, 1, 2, 3]);
    assert.deepEqual(rounds.map((o) => o[0]), [0, 1, 2, 3, 0]);
    assert.deepEqual(rounds[1], [1, 2, 3, 0]);
  });

  it('divides a cell by the reference size of its own budget, round by round', () => {
    const cells = [
      { questions: 8, budget: 4, tokensPerSecond: [10, 30, 20] },
      { questions: 16, budget: 4, tokensPerSecond: [20, 30, 40] },
      { questions: 64, budget: 4, tokensPerSecond: [18, 33, 30] },
      { questions: 8, budget: 16, tokensPerSecond: [1, 1, 1] },
      { questions: 16, budget: 16, tokensPerSecond: [2, 4, 8] },
      { questions: 64, budget: 16, tokensPerSecond: [2, 2, 2] },
    ];
    const r = ratiosToReference(cells, [8, 16, 64]);
    assert.deepEqual(r.map((x) => x.referenceQuestions), [16, 16, 16, 16, 16, 16]);
    assert.deepEqual(r[0].ratios, [0.5, 1, 0.5]);
    assert.equal(r[0].medianRatio, 0.5);
    assert.deepEqual(r[1].ratios, [1, 1, 1]);
    assert.deepEqual(r[2].ratios, [0.9, 1.1, 0.75]);
    assert.equal(r[2].medianRatio, 0.9);
    assert.deepEqual(r[5].ratios, [1, 0.5, 0.25]);
    assert.equal(r[5].medianRatio, 0.5);
  });

  it('prints a row per cell and lists the cells below 0.9 of their reference with what differs', () => {
    const profile = (batch: number): AuditProfile => ({ wallSeconds: 10, prefillSeconds: 2, decodeSeconds: 7, chooseSeconds: 0.5, betweenSeconds: 0.3, idleSeconds: 0.2, gradingSeconds: 0.01, meanDecodeBatch: batch, maxBatch: 32, decodeSteps: 100, emptyPlacesWhileWaiting: 0, searchOnlySteps: 0, searchOnlySeconds: 0, prefillSteps: 5, prefillRows: 20 });
    const cell = (questions: number, tokensPerSecond: number[], ratios: number[], batch: number): AuditSweepCell => ({
      questions, budget: 4, generations: questions * 13, generatedTokens: questions * 1000, seconds: tokensPerSecond.map((t) => (questions * 1000) / t),
      tokensPerSecond, medianTokensPerSecond: tokensPerSecond[0], minTokensPerSecond: Math.min(...tokensPerSecond), maxTokensPerSecond: Math.max(...tokensPerSecond),
      referenceQuestions: 16, ratios, medianRatio: ratios[0], profile: [profile(batch)], breakdown: [],
    });
    const f: AuditSweepFigures = { sizes: [8, 16, 64], budgets: [4], tokenLimits: [40, 300], rounds: 1, maxBatch: 32, inFlight: 32, order: [['8×4', '16×4', '64×4']], cells: [cell(8, [50], [0.5], 14), cell(16, [100], [1], 28.5), cell(64, [95], [0.95], 31)] };
    const text = auditSweepText(f).join('\n');
    assert.match(text, /÷ 16q median \(per round\)/);
    assert.match(text, /\n\s+64\s+4\s+832\s+64000\s+673\.7\s+95\.0 \(95\.0–95\.0\)\s+0\.95 \(0\.95\)\s+20%\s+70%/);
    assert.match(text, /not flat \(below 0\.9 of 16 questions\):\n {2}8 questions at budget 4: 0\.50 of 16 — decode batch 14\.0 vs 28\.5/);
    assert.doesNotMatch(text, /64 questions at budget 4: /);
  });
});
