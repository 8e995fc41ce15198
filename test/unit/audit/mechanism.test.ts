/**
 * The mechanism account's pure parts: the divergence point, ranks and the suppressor, the run
 * summary's agreement with the repair scan against chance (exact tail), and mechanism.jsonl's
 * validation naming the file, the line and the field.
 */
import { describe, it, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { divergencePoint, firstDifference } from '../../../src/audit/mechanism/divergence';
import { accountFor, mostNegative, rankOf } from '../../../src/audit/mechanism/blockAccount';
import { summarizeMechanism } from '../../../src/audit/mechanism/mechanismSummary';
import { MECHANISM_FILE, readMechanism } from '../../../src/audit/mechanism/mechanismStore';
import { failureSetOf } from '../../../src/audit/mechanism/mechanismSummary';
import type { BlockInspection } from '../../../src/engine';
import type { MechanismRecord } from '../../../src/contract';
import { deployed, repairScan, testRecord } from '../../support/questionRecord';

describe('divergence point', () => {
  it('is the first differing position, the shorter length for a prefix, -1 for equal tokens', () => {
    assert.equal(firstDifference([1, 2, 3], [1, 2, 4]), 2);
    assert.equal(firstDifference([1, 2], [1, 2, 3]), 2);
    assert.equal(firstDifference([1, 2, 3], [1, 2, 3]), -1);
    assert.equal(firstDifference([], [5]), 0);
  });
  it('compares the correct path that stays with the deployed output longest (ties: the first)', () => {
    const paths = [
      { probe: 'routes', attempt: 0, tokens: [1, 9] },
      { probe: 'sample', attempt: 2, tokens: [1, 2, 7] },
      { probe: 'sample', attempt: 3, tokens: [1, 2, 8] },
      { probe: 'sample', attempt: 4, tokens: [1, 2, 3] },
    ];
    const point = divergencePoint([1, 2, 3], paths);
    assert.deepEqual(point && { probe: point.path.probe, attempt: point.path.attempt, position: point.position }, { probe: 'sample', attempt: 2, position: 2 });
    assert.equal(divergencePoint([1, 2, 3], [{ probe: 's', attempt: 0, tokens: [1, 2, 3] }]), null);
  });
});

describe('block account', () => {
  it('ranks from 1, ties share the better rank', () => {
    const l = Float32Array.from([0.5, 2, 2, -1]);
    assert.deepEqual([0, 1, 2, 3].map((t) => rankOf(l, t)), [3, 1, 1, 4]);
  });
  it('names the most negative value, null when none is negative', () => {
    assert.equal(mostNegative([0.3, -0.1, -2, -2]), 2);
    assert.equal(mostNegative([0, 1]), null);
  });
  it('reads lens g−d, attributions and the suppressor from an inspection', () => {
    const V = 3;
    const row = (...x: number[]) => Float32Array.from(x);
    const ins: BlockInspection = {
      numBlocks: 2,
      vocabSize: V,
      lens: [row(1, 0, 0), row(0, 2, 0)],
      direct: { embedding: row(0.1, 0, 0), attention: [row(0.5, 0, 0), row(0, 0.5, 0)], mlp: [row(0.4, 0, 0), row(0, 1.5, 0)] },
      residual: [],
      attention: [],
      mlp: [],
      embeddingRow: new Float32Array(0),
    };
    // g = 0, d = 1: block 1's MLP pushes toward d.
    const a = accountFor(ins, 0, 1);
    assert.deepEqual(a.blocks.map((b) => b.lens), [1, -2]);
    assert.deepEqual(a.blocks.map((b) => [b.attention, b.mlp]), [[0.5, 0.4], [-0.5, -1.5]]);
    assert.deepEqual(a.blocks.map((b) => [b.rankG, b.rankD]), [[1, 2], [2, 1]]);
    assert.equal(a.suppressor, 1);
    assert.equal(a.blockSuppressor, 1);
    assert.equal(a.top, 1);
    assert.equal(a.embedding, 0.1);
  });
});

function account(id: string, suppressor: number | null): MechanismRecord {
  const token = { id: 1, text: 'x' };
  return { id, position: 0, deployed: token, gold: { id: 2, text: 'y' }, top: token, embedding: 0, blocks: [], suppressor, blockSuppressor: suppressor };
}

describe('mechanism summary', () => {
  it('counts suppressors per block and tests agreement with the identified block against 1/L', () => {
    const accounts = [account('a', 2), account('b', 2), account('c', 2), account('d', 0), account('e', null), { id: 'f', skipped: 'same-tokens' as const }];
    const s = summarizeMechanism({ numBlocks: 4, failureSetSize: 6, accounts, records: [], identifiedBlock: 2 });
    assert.deepEqual(s.suppressorCounts, [1, 0, 3, 0]);
    assert.equal(s.explained, 5);
    assert.equal(s.skipped, 1);
    assert.equal(s.noSuppressor, 1);
    const w = s.withIdentified!;
    assert.equal(w.n, 4);
    assert.equal(w.agree, 3);
    assert.equal(w.chanceExpected, 1);
    // P(Bin(4, 1/4) ≥ 3) = 4·(1/4)³·(3/4) + (1/4)⁴ = 13/256.
    assert.ok(Math.abs(w.p - 13 / 256) < 1e-12, `p ${w.p}`);
    assert.ok(w.ci.lo < 0.75 && w.ci.hi > 0.75);
  });
  it("tests agreement with each question's repairing blocks against their share of the blocks", () => {
    const records = [
      testRecord('a', 1, { repair: repairScan(true, false, { 0: false, 1: true, 2: true, 3: false }) }),
      testRecord('b', 2, { repair: repairScan(true, false, { 0: true, 1: false, 2: false, 3: false }) }),
      testRecord('c', 3, { repair: repairScan(true, false, { 0: false, 1: false, 2: false, 3: false }) }),
    ];
    const s = summarizeMechanism({ numBlocks: 4, failureSetSize: 3, accounts: [account('a', 2), account('b', 3), account('c', 1)], records, identifiedBlock: null });
    assert.equal(s.withIdentified, undefined);
    const w = s.withRepairing!;
    // c has no repairing block: left out. a agrees (chance 2/4), b does not (chance 1/4).
    assert.equal(w.n, 2);
    assert.equal(w.agree, 1);
    assert.equal(w.chanceExpected, 0.75);
    assert.ok(Math.abs(w.p - (1 - 0.5 * 0.75)) < 1e-12);
  });
});

describe('failure set for explain', () => {
  it("is the repair scan's membership, else the reference probes' reachable-but-not-realized", () => {
    const records = [
      testRecord('a', 1, { repair: repairScan(true, false, {}) }),
      testRecord('b', 2, { repair: repairScan(false, false, {}), reachable: { sample: true } }),
      testRecord('c', 3, { reachable: { sample: true } }),
      testRecord('d', 4, { reachable: { sample: true }, realized: deployed(true) }),
      testRecord('e', 5, { reachable: { routes: true } }),
    ];
    const ids = failureSetOf(records, { repair: { enabled: true, referenceProbes: ['sample'] } }).map((r) => r.id);
    assert.deepEqual(ids, ['a', 'c']);
  });
});

describe('mechanism.jsonl', () => {
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-mechanism-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  it('reads valid lines and ignores a torn last line with a warning', () => {
    fs.writeFileSync(path.join(dir, MECHANISM_FILE), JSON.stringify(account('a', 1)) + '\n' + JSON.stringify({ id: 'b', skipped: 'no-correct-attempt' }) + '\n{"id":"c","blo');
    const r = readMechanism(dir);
    assert.deepEqual(r.values.map((v) => v.id), ['a', 'b']);
    assert.equal(r.warnings.length, 1);
  });
  it('names the file, the line and the field of a bad value', () => {
    const bad = { ...account('a', 1), blocks: [{ lens: 1, rankG: 0, rankD: 1, attention: 0, mlp: 0 }] };
    fs.writeFileSync(path.join(dir, MECHANISM_FILE), JSON.stringify(account('z', 0)) + '\n' + JSON.stringify(bad) + '\n');
    assert.throws(() => readMechanism(dir), (err: Error) => /mechanism\.jsonl:2: field blocks\[0\]\.rankG: expected a positive integer, got 0/.test(err.message));
  });
  it('refuses an account without its tokens', () => {
    fs.writeFileSync(path.join(dir, MECHANISM_FILE), JSON.stringify({ id: 'q', blocks: [] }) + '\n');
    assert.throws(() => readMechanism(dir), /mechanism\.jsonl:1: .*expected "skipped", or "blocks", "deployed" and "gold"/);
  });
});
