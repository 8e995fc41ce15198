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
import { staleAccountDifference } from '../../../src/audit/mechanism/staleAccount';
import { accountFor, mostNegative, rankOf } from '../../../src/audit/mechanism/blockAccount';
import { summarizeMechanism } from '../../../src/audit/mechanism/mechanismSummary';
import { poissonBinomialUpperTail, seededRandom } from '../../../src/audit/stats';
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
  it('counts suppressors per block and tests agreement with the identified block on the questions it repairs, suppressors shuffled', () => {
    const scan = (...repairing: number[]) => repairScan(true, false, Object.fromEntries([0, 1, 2, 3].map((b) => [b, repairing.includes(b)])));
    // Block 2 repairs a, b, d; suppressors: a 2, b 2, c 2, d 0; e has none; f has no account.
    const records = [testRecord('a', 1, { repair: scan(2) }), testRecord('b', 2, { repair: scan(2, 3) }), testRecord('c', 3, { repair: scan(1) }), testRecord('d', 4, { repair: scan(2) }), testRecord('e', 5, { repair: scan(2) })];
    const accounts = [account('a', 2), account('b', 2), account('c', 2), account('d', 0), account('e', null), { id: 'f', skipped: 'same-tokens' as const }];
    const s = summarizeMechanism({ numBlocks: 4, failureSetSize: 6, accounts, records, identifiedBlock: 2 });
    assert.deepEqual(s.suppressorCounts, [1, 0, 3, 0]);
    assert.equal(s.explained, 5);
    assert.equal(s.skipped, 1);
    assert.equal(s.noSuppressor, 1);
    const w = s.withIdentified!;
    // Of a, b, d (block 2 repairs them), a and b have suppressor 2; shuffling the 4 suppressors (three are 2):
    // hypergeometric, 4 questions, 3 marked, 3 drawn: expected 9/4, P(X ≥ 2) = 1 (at least 2 of any 3 are marked).
    assert.deepEqual([w.n, w.agree, w.permutations], [3, 2, 'exact']);
    assert.equal(w.chanceExpected, 9 / 4);
    assert.ok(Math.abs(w.p - 1) < 1e-12, `p ${w.p}`);
  });
  it("tests agreement with each question's repairing blocks against the suppressors shuffled across questions (exact when few)", () => {
    const records = [
      testRecord('a', 1, { repair: repairScan(true, false, { 0: false, 1: true, 2: true, 3: false }) }),
      testRecord('b', 2, { repair: repairScan(true, false, { 0: true, 1: false, 2: false, 3: false }) }),
      testRecord('c', 3, { repair: repairScan(true, false, { 0: false, 1: false, 2: false, 3: false }) }),
    ];
    const s = summarizeMechanism({ numBlocks: 4, failureSetSize: 3, accounts: [account('a', 2), account('b', 3), account('c', 1)], records, identifiedBlock: null });
    assert.equal(s.withIdentified, undefined);
    const w = s.withRepairing!;
    // c has no repairing block: left out. a agrees (2 ∈ {1, 2}), b does not; swapped, neither does: p = 1/2, expected 1/2.
    assert.deepEqual([w.n, w.agree, w.permutations], [2, 1, 'exact']);
    assert.equal(w.chanceExpected, 0.5);
    assert.equal(w.p, 0.5);
  });
  it('under a late-leaning null (suppressor and repair unrelated question by question) the uniform-block tests reject often, the permutation nulls near α', () => {
    // 8 blocks; suppressors and repairing blocks drawn independently, both leaning late (block 7 most).
    const L = 8;
    const weights = [1, 1, 1, 1, 2, 3, 6, 12];
    const total = weights.reduce((a, b) => a + b, 0);
    const draw = (random: () => number) => {
      let u = random() * total;
      for (let b = 0; b < L; b++) if ((u -= weights[b]) < 0) return b;
      return L - 1;
    };
    const runs = 200;
    const questions = 30;
    const rejected = { uniformRepairing: 0, uniformIdentified: 0, repairing: 0, identified: 0 };
    for (let run = 0; run < runs; run++) {
      const random = seededRandom(21, 'late-null', run);
      const records: ReturnType<typeof testRecord>[] = [];
      const accounts: MechanismRecord[] = [];
      for (let q = 0; q < questions; q++) {
        const repairing = new Set([draw(random), draw(random)]);
        records.push(testRecord(`q${q}`, q + 1, { repair: repairScan(true, false, Object.fromEntries(Array.from({ length: L }, (_, b) => [b, repairing.has(b)]))) }));
        accounts.push(account(`q${q}`, draw(random)));
      }
      // The identified block: the one that repairs most questions.
      const repairs = Array.from({ length: L }, (_, b) => records.filter((r) => r.repair!.correctBySilencedBlock[b]).length);
      const identified = repairs.indexOf(Math.max(...repairs));
      const s = summarizeMechanism({ numBlocks: L, failureSetSize: questions, accounts, records, identifiedBlock: identified });
      if (s.withRepairing!.p < 0.05) rejected.repairing++;
      if (s.withIdentified!.p < 0.05) rejected.identified++;
      // The uniform-block tests as they were: binomial / Poisson-binomial against a random block.
      const chances = accounts.map((a) => Object.values(records.find((r) => r.id === a.id)!.repair!.correctBySilencedBlock).filter(Boolean).length / L);
      const agreeRepairing = accounts.filter((a) => records.find((r) => r.id === a.id)!.repair!.correctBySilencedBlock[a.suppressor as number]).length;
      if (poissonBinomialUpperTail(chances, agreeRepairing) < 0.05) rejected.uniformRepairing++;
      const agreeIdentified = accounts.filter((a) => a.suppressor === identified).length;
      if (poissonBinomialUpperTail(accounts.map(() => 1 / L), agreeIdentified) < 0.05) rejected.uniformIdentified++;
    }
    const rate = (k: number) => k / runs;
    assert.ok(rate(rejected.uniformRepairing) > 0.5 && rate(rejected.uniformIdentified) > 0.5, `uniform nulls reject ${JSON.stringify(rejected)} of ${runs}`);
    // Near α = 0.05: within the binomial noise of 200 runs (sd ≈ 0.015), and never far above.
    assert.ok(rate(rejected.repairing) <= 0.09 && rate(rejected.identified) <= 0.09, `permutation nulls reject ${JSON.stringify(rejected)} of ${runs}`);
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

describe('a stored account against its record', () => {
  const now = { probe: 'sample', attempt: 1, position: 2, shared: [5, 6], d: 7, g: 8 };
  const stored: MechanismRecord = { id: 'q', probe: 'sample', attempt: 1, position: 2, sharedTail: 'ab', deployed: { id: 7, text: 'x' }, gold: { id: 8, text: 'y' }, blocks: [] };
  const decode = (ids: number[]) => ids.map((i) => `<${i}>`).join('');
  it('matches when the record gives the same divergence, and names both sides when not (issue 39)', () => {
    assert.equal(staleAccountDifference(stored, now, decode, 'ab'), null);
    assert.equal(staleAccountDifference({ id: 'q', skipped: 'same-tokens' }, { skipped: 'same-tokens' }, decode, ''), null);
    assert.equal(staleAccountDifference({ ...stored, sharedTail: undefined }, now, decode, 'ab'), null);
    assert.match(staleAccountDifference(stored, { ...now, d: 9 }, decode, 'ab') ?? '', /explains token 2 against sample attempt 1: deployed 7 "x", correct 8 "y", after "ab"; .* now give token 2 against sample attempt 1: deployed 9 "<9>", correct 8 "<8>"/);
    assert.match(staleAccountDifference(stored, now, decode, 'ac') ?? '', /after "ab".*after "ac"/);
    assert.match(staleAccountDifference(stored, { skipped: 'no-correct-attempt' }, decode, '') ?? '', /now give skipped \(no-correct-attempt\)$/);
    assert.match(staleAccountDifference({ id: 'q', skipped: 'same-tokens' }, now, decode, 'ab') ?? '', /^the account explains skipped \(same-tokens\)/);
  });
});

