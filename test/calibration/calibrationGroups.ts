/**
 * The calibration groups: each simulates one printed interval or test under a known truth, calling
 * the function the surfaces call (src/), and returns its rows. Truths, sizes and run counts are
 * chosen so the whole suite runs in minutes on two loaded cores; each row states its Monte-Carlo
 * standard error. docs/design/statistics.md "Calibration" holds the table (writeTable.ts regenerates it).
 */
import { wilsonInterval } from '../../src/contract';
import { STATISTIC_METHODS, type StatisticMethodKey } from '../../src/contract/statisticMethods';
import { holmAdjust, mcnemarExact, pAbove, pBelow, pEquivalent, pairedBootstrap, pairedDelta, pairedScoreInterval, seedFor } from '../../src/audit/stats';
import { jaccardInterval, overlapOf, JACCARD_MIN_UNION } from '../../src/audit/results/perturbationTable';
import { COVER_TAUS, coveredAt, guessCoverProbability } from '../../src/audit/results/coverAtTau';
import { chanceLevel } from '../../src/audit/results/chanceLevel';
import { depthTrend } from '../../src/audit/results/depthTrend';
import { medianInterval, operatingCharacteristic, sequentialRateTest } from '../../src/audit/stats';
import { narrowWindowNow } from '../../src/audit/runner/foreclosureWindow';
import { chooseSites, type ForkSite } from '../../src/audit/runner/forkProbe';
import { repairNull } from '../../src/audit/repair/repairNull';
import { hypergeometricUpperTail, repairingPermutationNull } from '../../src/audit/mechanism/agreementNull';
import { coverageRow, binomialDraw, binomialPmf, pairedTables, reportedRow, sizeRow, streamFor, type CalibrationRow } from './monteCarlo';
import { testRecord, deployed } from '../support/questionRecord';

const ALPHA = 0.05;
const ONE_SIDED = 0.025;
const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

function wilsonRows(): CalibrationRow[] {
  const grid = [0.05, 0.1, 0.3, 0.5];
  return [10, 20, 50, 100].flatMap((n) => {
    const cover = grid.map((p) => binomialPmf(n, p).reduce((s, pk, k) => {
      const ci = wilsonInterval(k, n);
      return s + (ci.lo <= p && p <= ci.hi ? pk : 0);
    }, 0));
    const mean = cover.reduce((a, b) => a + b, 0) / cover.length;
    const min = Math.min(...cover);
    return [
      coverageRow({ method: 'Wilson score 95% (rates)', truth: `p ∈ {${grid.join(', ')}}, mean`, n: String(n), measured: mean, runs: 0 }, n >= 20 ? 0.93 : 0.9),
      reportedRow({ method: 'Wilson score 95% (rates)', truth: `same, worst p`, n: String(n), kind: 'coverage', measured: min, runs: 0 }, 'reported'),
    ];
  });
}

const PAIRED_TRUTHS = [
  { name: '40/10/10/40 (Δ 0)', cells: { both: 0.4, onlyFirst: 0.1, onlySecond: 0.1, neither: 0.4 } },
  { name: '30/20/5/45 (Δ +15)', cells: { both: 0.3, onlyFirst: 0.2, onlySecond: 0.05, neither: 0.45 } },
  { name: '10/5/2/83 (Δ +3)', cells: { both: 0.1, onlyFirst: 0.05, onlySecond: 0.02, neither: 0.83 } },
];

function newcombeRows(): CalibrationRow[] {
  return [20, 50].flatMap((n) => PAIRED_TRUTHS.map(({ name, cells }) => {
    const delta = cells.onlyFirst - cells.onlySecond;
    let cover = 0;
    for (const { table, p } of pairedTables(n, cells)) {
      const ci = pairedScoreInterval(table);
      if (ci.lo <= delta + 1e-12 && delta - 1e-12 <= ci.hi) cover += p;
    }
    return coverageRow({ method: 'Newcombe paired score 95% (Δ of paired rates)', truth: `cells ${name}`, n: String(n), measured: cover, runs: 0 }, 0.92);
  }));
}

function mcnemarRows(): CalibrationRow[] {
  return [20, 50, 100].flatMap((n) => [0.05, 0.2].map((d) => {
    let size = 0;
    for (const { table, p } of pairedTables(n, { both: 0.5 - d, onlyFirst: d, onlySecond: d, neither: 0.5 - d })) {
      if (mcnemarExact(table.onlySecond, table.onlyFirst) < ALPHA) size += p;
    }
    return sizeRow({ method: 'exact McNemar (two-sided, α 5%)', truth: `discordant ${pct(2 * d)}, Δ 0`, n: String(n), measured: size, runs: 0 }, ALPHA);
  }));
}

const MARGIN = 0.05;

function marginRows(): CalibrationRow[] {
  // At the boundary of each null: Δ = −margin (non-inferiority) and Δ = +margin (TOST).
  const boundary = (sign: number) => ({ both: 0.35, onlyFirst: sign > 0 ? 0.15 : 0.1, onlySecond: sign > 0 ? 0.1 : 0.15, neither: 0.4 });
  return [20, 50].flatMap((n) => {
    let ni = 0;
    for (const { table, p } of pairedTables(n, boundary(-1))) if (pAbove(table, -MARGIN) < ONE_SIDED) ni += p;
    let tost = 0;
    for (const { table, p } of pairedTables(n, boundary(1))) if (pEquivalent(table, MARGIN) < ONE_SIDED) tost += p;
    return [
      sizeRow({ method: 'non-inferiority (Newcombe-inverted, one-sided 2.5%)', truth: 'Δ = −5 pts (boundary), discordant 25%', n: String(n), measured: ni, runs: 0 }, ONE_SIDED, 0.01),
      sizeRow({ method: 'TOST equivalence ±5 pts (Newcombe-inverted, 2.5% each)', truth: 'Δ = +5 pts (boundary), discordant 25%', n: String(n), measured: tost, runs: 0 }, ONE_SIDED, 0.01),
    ];
  });
}

/**
 * The training table's "the ceiling does not rise" test alone: one-sided p of tuned − base < +margin
 * (pBelow, the score interval inverted), rejected at 2.5%. Ceilings sit high, so most questions are
 * reached by both checkpoints: size at the boundary Δ = +5, power where the ceiling is flat or falls.
 */
function ceilingRows(): CalibrationRow[] {
  const method = `${STATISTIC_METHODS.ceilingNotRising.calibration}, one-sided 2.5%)`;
  const at = (delta: number) => ({ both: 0.8, onlyFirst: 0.05 + delta / 2, onlySecond: 0.05 - delta / 2, neither: 0.1 });
  const rejection = (n: number, delta: number) => {
    let r = 0;
    for (const { table, p } of pairedTables(n, at(delta))) if (pBelow(table, MARGIN) < ONE_SIDED) r += p;
    return r;
  };
  return [20, 50, 100].flatMap((n) => [
    sizeRow({ method, truth: 'Δ ceiling = +5 pts (boundary), both 80%, discordant 10%', n: String(n), measured: rejection(n, MARGIN), runs: 0 }, ONE_SIDED, 0.01),
    reportedRow({ method, truth: 'power: Δ ceiling 0, same cells', n: String(n), kind: 'power', measured: rejection(n, 0), runs: 0 }, 'reported'),
    reportedRow({ method, truth: 'power: Δ ceiling −5 pts, same cells', n: String(n), kind: 'power', measured: rejection(n, -MARGIN), runs: 0 }, 'reported'),
  ]);
}

function drawTable(random: () => number, n: number, cells: { both: number; onlyFirst: number; onlySecond: number }) {
  const t = { both: 0, onlyFirst: 0, onlySecond: 0, neither: 0 };
  for (let i = 0; i < n; i++) {
    const u = random();
    if (u < cells.both) t.both++;
    else if (u < cells.both + cells.onlyFirst) t.onlyFirst++;
    else if (u < cells.both + cells.onlyFirst + cells.onlySecond) t.onlySecond++;
    else t.neither++;
  }
  return t;
}

function holmRows(): CalibrationRow[] {
  const families = [
    { rows: 3, n: 50, runs: 2000 },
    { rows: 6, n: 50, runs: 1000 },
    { rows: 10, n: 50, runs: 1000 },
    { rows: 3, n: 200, runs: 1000 },
    { rows: 10, n: 200, runs: 500 },
  ];
  return families.flatMap(({ rows, n, runs }) => {
    const random = streamFor('holm', rows, n);
    let direction = 0;
    let equivalence = 0;
    for (let r = 0; r < runs; r++) {
      const nulls = Array.from({ length: rows }, () => drawTable(random, n, { both: 0.4, onlyFirst: 0.1, onlySecond: 0.1 }));
      if (holmAdjust(nulls.map((t) => mcnemarExact(t.onlySecond, t.onlyFirst))).some((p) => p < ALPHA)) direction++;
      const edge = Array.from({ length: rows }, () => drawTable(random, n, { both: 0.35, onlyFirst: 0.15, onlySecond: 0.1 }));
      if (holmAdjust(edge.map((t) => pEquivalent(t, MARGIN))).some((p) => p < ONE_SIDED)) equivalence++;
    }
    return [
      sizeRow({ method: `Holm family of exact McNemar (${rows} rows)`, truth: 'every row Δ 0, discordant 20% (family-wise error)', n: String(n), measured: direction / runs, runs }, ALPHA),
      sizeRow({ method: `Holm family of TOST (${rows} rows)`, truth: 'every row at Δ = +5 pts (family-wise error)', n: String(n), measured: equivalence / runs, runs }, ONE_SIDED, 0.01),
    ];
  });
}

/** Unbiased pass@k of c correct among B: 1 − C(B − c, k) / C(B, k). */
function passAtK(c: number, budget: number, k: number): number {
  if (budget - c < k) return 1;
  let miss = 1;
  for (let i = 0; i < k; i++) miss *= (budget - c - i) / (budget - i);
  return 1 - miss;
}

function passAtKRows(): CalibrationRow[] {
  const budget = 4;
  const k = 2;
  // Three question kinds; the tuned checkpoint's rate on the first two moves by `shift` (0: Δ near 0).
  const effects = [
    { name: 'Δ near 0', shift: 0, runs: 300 },
    { name: 'moderate gain', shift: 0.15, runs: 200 },
    { name: 'large gain', shift: 0.4, runs: 200 },
  ];
  return effects.flatMap(({ name, shift, runs }) => {
    const kinds = [
      { w: 0.4, base: 0.05, tuned: 0.1 + shift },
      { w: 0.3, base: 0.3, tuned: 0.3 + shift },
      { w: 0.3, base: 0.8, tuned: 0.6 },
    ];
    const truth = kinds.reduce((s, q) => s + q.w * ((1 - (1 - q.tuned) ** k) - (1 - (1 - q.base) ** k)), 0);
    return [20, 50].map((n) => {
      const random = shift === 0 ? streamFor('pass-at-k', n) : streamFor('pass-at-k', n, shift);
      let cover = 0;
      for (let r = 0; r < runs; r++) {
        const base: number[] = [];
        const tuned: number[] = [];
        for (let i = 0; i < n; i++) {
          const u = random();
          const q = u < kinds[0].w ? kinds[0] : u < kinds[0].w + kinds[1].w ? kinds[1] : kinds[2];
          base.push(passAtK(binomialDraw(random, budget, q.base), budget, k));
          tuned.push(passAtK(binomialDraw(random, budget, q.tuned), budget, k));
        }
        // 1,000 resamples here (10,000 in the report): the percentile interval's own noise is small beside the coverage measured.
        const d = pairedBootstrap(base, tuned, { seed: seedFor('calibration', n, r), resamples: 1000 });
        if (d.lo <= truth && truth <= d.hi) cover++;
      }
      return coverageRow({ method: 'paired percentile bootstrap 95% (Δpass@k)', truth: `B 4, k 2, three question kinds, ${name}: Δ ${(100 * truth).toFixed(1)} pts`, n: String(n), measured: cover / runs, runs }, 0.92);
    });
  });
}

function jaccardRows(): CalibrationRow[] {
  const runs = 2000;
  const cells = { both: 0.15, onlyFirst: 0.1, onlySecond: 0.1 };
  const truth = cells.both / (cells.both + cells.onlyFirst + cells.onlySecond);
  return [60, 200].flatMap((n) => {
    const random = streamFor('jaccard', n);
    let shown = 0;
    let cover = 0;
    for (let r = 0; r < runs; r++) {
      const t = drawTable(random, n, cells);
      const a = [...Array(t.both + t.onlyFirst).fill(true), ...Array(t.onlySecond + t.neither).fill(false)];
      const b = [...Array(t.both).fill(true), ...Array(t.onlyFirst).fill(false), ...Array(t.onlySecond).fill(true), ...Array(t.neither).fill(false)];
      const o = overlapOf('a', 'b', a, b);
      if (!o.interval) continue;
      shown++;
      if (o.interval.lo <= truth && truth <= o.interval.hi) cover++;
      if (o.interval.lo !== jaccardInterval(t.both, t.both + t.onlyFirst + t.onlySecond).lo) throw new Error('overlapOf and jaccardInterval disagree');
    }
    return coverageRow({ method: `Jaccard (Wilson on the union, union ≥ ${JACCARD_MIN_UNION})`, truth: `J ${truth.toFixed(2)}; interval shown in ${pct(shown / runs)} of runs`, n: `${n} (gain set)`, measured: cover / Math.max(shown, 1), runs: shown }, 0.92);
  });
}

function chanceRows(): CalibrationRow[] {
  const runs = 2000;
  return [20, 50].flatMap((n) => [0.1, 0.5].flatMap((share) => {
    const random = streamFor('chance', n, share);
    let shown = 0;
    let cover = 0;
    let differenceCover = 0;
    for (let r = 0; r < runs; r++) {
      const qs = Array.from({ length: n }, (_, i) => {
        const options = i % 2 === 0 ? 4 : 5;
        // Knows the answer with probability `share`, else guesses uniformly.
        return { options, attempts: 1, reached: random() < share || random() < 1 / options };
      });
      const c = chanceLevel(qs);
      const observedTruth = c.level + share * (1 - c.level);
      if (c.overChance && c.overChance.lo <= observedTruth - c.level && observedTruth - c.level <= c.overChance.hi) differenceCover++;
      if (!c.beyondChance) continue;
      shown++;
      if (c.beyondChance.lo <= share && share <= c.beyondChance.hi) cover++;
    }
    return [
      coverageRow({ method: 'observed − chance (Wilson, shifted)', truth: `4/5 options, 1 attempt, share known ${pct(share)}`, n: String(n), measured: differenceCover / runs, runs }, 0.92),
      reportedRow({ method: 'share beyond chance (Wilson, mapped; shown above chance only)', truth: `same; shown in ${pct(shown / runs)} of runs`, n: String(n), kind: 'coverage', measured: shown === 0 ? Number.NaN : cover / shown, runs: shown }, 'reported (conditional on being shown)'),
    ];
  }));
}

function repairNullRows(): CalibrationRow[] {
  const runs = 300;
  const blocks = Array.from({ length: 12 }, (_, i) => i);
  return [20, 50].flatMap((n) => {
    const random = streamFor('repair-null', n);
    let rejected = 0;
    let cover = 0;
    for (let r = 0; r < runs; r++) {
      const repairs = new Map<string, boolean[]>();
      const heldOut = Array.from({ length: n }, (_, i) => {
        const rate = [0.05, 0.2, 0.5][i % 3];
        const record = testRecord(`q${i}`, i + 1, { realized: deployed(false) });
        repairs.set(record.id, blocks.map(() => random() < rate));
        return record;
      });
      // The identified block was chosen on the other half: on this one it is any block.
      const result = repairNull(heldOut, [], blocks, 0, (q, b) => repairs.get(q.id)![b], () => false)!;
      if (result.pValue < ALPHA) rejected++;
      // Truth of identified − random: each block repairs question i with the same rate, so 0.
      if (result.difference.lo !== null && result.difference.hi !== null && result.difference.lo <= 0 && 0 <= result.difference.hi) cover++;
    }
    return [
      sizeRow({ method: 'repair null: exact Poisson-binomial p (one-sided)', truth: '12 exchangeable blocks, rates 5/20/50%', n: String(n), measured: rejected / runs, runs }, ALPHA),
      coverageRow({ method: 'repair null: identified − random, percentile bootstrap 95%', truth: 'same, difference 0', n: String(n), measured: cover / runs, runs }, 0.92),
    ];
  });
}

function mechanismRows(): CalibrationRow[] {
  const runs = 400;
  const L = 8;
  return [12, 30].flatMap((n) => {
    const random = streamFor('mechanism', n);
    let hyper = 0;
    let perm = 0;
    let covariate = 0;
    for (let r = 0; r < runs; r++) {
      // Exchangeable questions: suppressor and repairing blocks independent.
      const suppressors = Array.from({ length: n }, () => Math.floor(random() * L));
      const repairing = Array.from({ length: n }, () => blocksWith(random, L, 0.3));
      if (repairingPermutationNull(suppressors, repairing, 199, r).p < ALPHA) perm++;
      const b = 0;
      const repairedByB = repairing.map((x, i) => (x.includes(b) ? i : -1)).filter((i) => i >= 0);
      const marked = suppressors.filter((s) => s === b).length;
      const agree = repairedByB.filter((i) => suppressors[i] === b).length;
      if (repairedByB.length > 0 && hypergeometricUpperTail(n, marked, repairedByB.length, agree) < ALPHA) hyper++;
      // A shared question type: late-type questions have late suppressors and late repairs, independently given the type.
      const late = Array.from({ length: n }, () => random() < 0.5);
      const s2 = late.map((l) => (l ? L - 1 - Math.floor(random() * 2) : Math.floor(random() * 2)));
      const r2 = late.map((l) => (l ? [L - 2, L - 1].filter(() => random() < 0.5) : [0, 1].filter(() => random() < 0.5)));
      const keep = r2.map((x, i) => (x.length > 0 ? i : -1)).filter((i) => i >= 0);
      if (keep.length > 1 && repairingPermutationNull(keep.map((i) => s2[i]), keep.map((i) => r2[i]), 199, r).p < ALPHA) covariate++;
    }
    return [
      sizeRow({ method: 'mechanism: identified block, hypergeometric (Fisher) p', truth: `${L} blocks, suppressor ⟂ repair`, n: String(n), measured: hyper / runs, runs }, ALPHA),
      sizeRow({ method: 'mechanism: repairing blocks, permutation null', truth: `${L} blocks, exchangeable questions`, n: String(n), measured: perm / runs, runs }, ALPHA),
      reportedRow({ method: 'mechanism: repairing blocks, permutation null', truth: 'shared question type (null holds within type): outside its assumption', n: String(n), kind: 'assumption', measured: covariate / runs, runs }, 'reported: exceeds α, so the summary states the exchangeability it assumes'),
    ];
  });
}

function blocksWith(random: () => number, L: number, p: number): number[] {
  return Array.from({ length: L }, (_, b) => b).filter(() => random() < p);
}

function depthRows(): CalibrationRow[] {
  const runs = 400;
  const prefixes = 5;
  const budget = 4;
  const reachedFrom = (random: () => number, q: number) => Array.from({ length: budget }, () => random() < q).some(Boolean);
  return [20, 50].flatMap((n) => {
    const rows: CalibrationRow[] = [];
    for (const q of [0.05, 0.15]) {
      const random = streamFor('depth-null', n, q);
      let rejected = 0;
      for (let r = 0; r < runs; r++) {
        const seqs = Array.from({ length: n }, () => Array.from({ length: prefixes }, () => reachedFrom(random, q)));
        if (depthTrend(seqs).p < ALPHA) rejected++;
      }
      rows.push(sizeRow({ method: 'depth of loss: trend (exact within-question permutation)', truth: `constant rate ${q} per sample, B ${budget}`, n: String(n), measured: rejected / runs, runs }, ALPHA));
    }
    const random = streamFor('depth-power', n);
    let detected = 0;
    for (let r = 0; r < runs; r++) {
      const seqs = Array.from({ length: n }, () => Array.from({ length: prefixes }, (_, j) => reachedFrom(random, 0.4 - (0.35 * j) / (prefixes - 1))));
      if (depthTrend(seqs).p < ALPHA) detected++;
    }
    rows.push(reportedRow({ method: 'depth of loss: trend (exact within-question permutation)', truth: `power: rate falls 0.40 → 0.05 over the 5 prefixes, B ${budget}`, n: String(n), kind: 'power', measured: detected / runs, runs }, 'reported'));
    return rows;
  });
}

/**
 * The fork probe's entropy arm against its random-position arm, as the probe draws them (chooseSites)
 * and the summary decides them (pairedDelta: Newcombe interval, exact McNemar, verdict at ±5 pts).
 * Each simulated question has 30 fork sites with exponential entropies and its own save rate (a
 * question-level draw, so questions differ as real ones do); under the null a site's save
 * probability does not depend on its entropy. Rejection = a "better" or "worse" verdict.
 */
function forkRows(): CalibrationRow[] {
  const runs = 400;
  const sitesPer = 30;
  const positions = 2;
  const verdictOf = (n: number, random: () => number, saveAt: (entropy: number, rate: number) => number) => {
    const byEntropy: boolean[] = [];
    const byRandom: boolean[] = [];
    for (let i = 0; i < n; i++) {
      const rate = 0.3 * random();
      const sites: ForkSite[] = Array.from({ length: sitesPer }, (_, position) => ({ position, entropy: -Math.log(1 - random()), deployed: { token: 0, text: 'a', logprob: -0.1 }, alternatives: [{ token: 1, text: 'b', logprob: -2 }] }));
      const saves = new Map(sites.map((s) => [s.position, random() < saveAt(s.entropy, rate)]));
      const chosen = chooseSites(sites, positions, random);
      byEntropy.push(chosen.some((c) => c.arms.includes('entropy') && saves.get(c.site.position)));
      byRandom.push(chosen.some((c) => c.arms.includes('random') && saves.get(c.site.position)));
    }
    return pairedDelta(byRandom, byEntropy, 0.05).decision?.verdict;
  };
  const rows: CalibrationRow[] = [];
  for (const n of [20, 50, 150]) {
    const random = streamFor('fork-null', n);
    let rejected = 0;
    for (let r = 0; r < runs; r++) {
      const v = verdictOf(n, random, (_, rate) => rate);
      if (v === 'better' || v === 'worse') rejected++;
    }
    rows.push(sizeRow({ method: 'forks: entropy vs random positions (paired, exact McNemar)', truth: `save rate independent of entropy, ${positions} positions per arm of ${sitesPer}`, n: String(n), measured: rejected / runs, runs }, ALPHA));
  }
  const random = streamFor('fork-power', 50);
  let detected = 0;
  for (let r = 0; r < runs; r++) {
    // Saves only where the entropy is in the top tenth of its distribution (above ln 10).
    if (verdictOf(50, random, (h, rate) => (h > Math.log(10) ? Math.min(1, 4 * rate) : 0)) === 'better') detected++;
  }
  rows.push(reportedRow({ method: 'forks: entropy vs random positions (paired, exact McNemar)', truth: 'power: saves only at the top-tenth entropies', n: '50', kind: 'power', measured: detected / runs, runs }, 'reported'));
  return rows;
}

function coverRows(): CalibrationRow[] {
  const runs = 1000;
  const budget = 8;
  const options = 4;
  return [20, 50].flatMap((n) => COVER_TAUS.slice(0, 2).map((tau) => {
    const random = streamFor('cover', n, tau);
    // A uniform guesser: its true Cover@τ is the stated chance reference.
    const truth = guessCoverProbability(options, budget, tau);
    let cover = 0;
    for (let r = 0; r < runs; r++) {
      let covered = 0;
      for (let i = 0; i < n; i++) if (coveredAt(Array.from({ length: budget }, () => random() < 1 / options), tau)) covered++;
      const ci = wilsonInterval(covered, n);
      if (ci.lo <= truth && truth <= ci.hi) cover++;
    }
    return coverageRow({ method: 'Cover@τ (Wilson) vs its guesser reference', truth: `uniform guesser, 4 options, B 8, τ ${tau} (reference ${(100 * truth).toFixed(1)}%)`, n: String(n), measured: cover / runs, runs }, 0.92);
  }));
}

/**
 * The foreclosure window: each decision's error at the threshold, exactly (the test's own
 * operating characteristic), then the whole bisection by seeded simulation — a window is wrong
 * when its lower bound's true rate is at or under θ or its upper bound's at or over θ.
 */
function foreclosureRows(): CalibrationRow[] {
  const method = 'foreclosure window: sequential rate test';
  const rows: CalibrationRow[] = [];
  for (const [threshold, most] of [[0.1, 48], [0.2, 32]] as const) {
    const oc = operatingCharacteristic(sequentialRateTest(threshold, ALPHA, most, 4), threshold);
    rows.push(sizeRow({ method, truth: `rate θ = ${threshold}, at most ${most} samples: decided "reaches" (wrong)`, n: '1 prefix', measured: oc.above, runs: 0 }, ALPHA));
    rows.push(sizeRow({ method, truth: `rate θ = ${threshold}, at most ${most} samples: decided "does not" (wrong)`, n: '1 prefix', measured: oc.below, runs: 0 }, ALPHA));
  }
  const test = sequentialRateTest(0.1, ALPHA, 48, 4);
  const runs = 1000;
  const truths: { name: string; rate: (t: number) => number }[] = [
    { name: 'constant rate θ = 0.1 over a 64-token bracket (every window wrong)', rate: () => 0.1 },
    { name: 'rate 0.3 up to token 37, 0 after (planted drop)', rate: (t) => (t <= 37 ? 0.3 : 0) },
    { name: 'rate falling 0.4 → 0 over 64 tokens (crosses θ at 48)', rate: (t) => 0.4 * (1 - t / 64) },
  ];
  for (const truth of truths) {
    const random = streamFor('foreclosure', truth.name);
    let wrong = 0;
    let decided = 0;
    for (let r = 0; r < runs; r++) {
      const found = narrowWindowNow(test, { from: 0, to: 64 }, (wanted) => wanted.map(({ tokens, from, to }) => Array.from({ length: to - from }, () => random() < truth.rate(tokens))));
      if (!found.window) continue;
      decided++;
      if (truth.rate(found.window.from) <= test.threshold || truth.rate(found.window.to) >= test.threshold) wrong++;
    }
    const base = { method: 'foreclosure window: bisection (θ 0.1, α 5%, at most 48 samples)', truth: truth.name, n: `${runs} brackets` };
    // A wrong window has at least one wrong bound, each decided at most α wrongly.
    rows.push(sizeRow({ ...base, measured: wrong / runs, runs }, 2 * ALPHA));
    rows.push(reportedRow({ ...base, kind: 'power', measured: decided / runs, runs }, 'reported: share with a decided window'));
  }
  return rows;
}

/**
 * The median width's distribution-free interval (order statistics): its coverage of the true
 * median on widths drawn from a skewed, tied distribution like the windows' (many one-token
 * windows, a long tail), where ties make the order-statistic interval conservative but never short.
 */
function medianRows(): CalibrationRow[] {
  const runs = 2000;
  // Widths in tokens: 1 with probability 0.3, else 2 + a geometric count G (P(G ≥ g) = (5/6)^g, mean 5).
  const draw = (random: () => number) => (random() < 0.3 ? 1 : 2 + Math.floor(Math.log(1 - random()) / Math.log(1 - 1 / 6)));
  // The true median: P(W ≤ 2) = 0.3 + 0.7/6 = 0.42 and P(W ≤ 3) = 0.3 + 0.7·(1 − (5/6)²) = 0.51, so 3.
  const truth = 3;
  const tied = [20, 50, 200].map((n) => {
    const random = streamFor('median width', String(n));
    let cover = 0;
    for (let r = 0; r < runs; r++) {
      const { ci } = medianInterval(Array.from({ length: n }, () => draw(random)));
      if (ci && ci.lo <= truth && truth <= ci.hi) cover++;
    }
    return coverageRow({ method: 'median width: order-statistic 95% (distribution-free)', truth: `widths 1 (30%) or 2 + geometric (mean 7), median ${truth}`, n: String(n), measured: cover / runs, runs }, 0.95);
  });
  // Without ties (a continuous distribution) the coverage is exactly 1 − 2·P(Bin(n, ½) ≤ j − 1): at least 95%, and close to it.
  const continuous = [20, 50].map((n) => {
    const random = streamFor('median continuous', String(n));
    let cover = 0;
    for (let r = 0; r < runs; r++) {
      const { ci } = medianInterval(Array.from({ length: n }, () => -Math.log(1 - random())));
      if (ci && ci.lo <= Math.LN2 && Math.LN2 <= ci.hi) cover++;
    }
    return coverageRow({ method: 'median width: order-statistic 95% (distribution-free)', truth: 'exponential (no ties), median ln 2', n: String(n), measured: cover / runs, runs }, 0.95);
  });
  return [...tied, ...continuous];
}

export interface CalibrationGroup {
  name: string;
  /** The printed methods (src/contract/statisticMethods.ts) whose rows this group makes. */
  methods: readonly StatisticMethodKey[];
  rows: () => CalibrationRow[];
}

export const CALIBRATION_GROUPS: CalibrationGroup[] = [
  { name: 'Wilson score interval of a rate', methods: ['wilson'], rows: wilsonRows },
  { name: 'Newcombe paired score interval', methods: ['newcombe'], rows: newcombeRows },
  { name: 'exact McNemar', methods: ['mcnemar'], rows: mcnemarRows },
  { name: 'non-inferiority and TOST equivalence', methods: ['nonInferiority', 'equivalence'], rows: marginRows },
  { name: 'ceiling does not rise', methods: ['ceilingNotRising'], rows: ceilingRows },
  { name: 'Holm families', methods: ['holm'], rows: holmRows },
  { name: 'paired bootstrap of Δpass@k', methods: ['passAtKBootstrap'], rows: passAtKRows },
  { name: 'Jaccard interval', methods: ['jaccard'], rows: jaccardRows },
  { name: 'Cover@τ and its chance reference', methods: ['coverAtTau'], rows: coverRows },
  { name: 'chance-corrected shares', methods: ['chanceDifference'], rows: chanceRows },
  { name: 'repair null', methods: ['repairNull', 'repairDifference'], rows: repairNullRows },
  { name: 'mechanism nulls', methods: ['identifiedBlock', 'repairingBlocks'], rows: mechanismRows },
  { name: 'depth of loss trend', methods: ['depthTrend'], rows: depthRows },
  { name: 'foreclosure window', methods: ['foreclosureTest'], rows: foreclosureRows },
  { name: 'median width', methods: ['medianOrderStatistic'], rows: medianRows },
  { name: 'forks: entropy vs random positions', methods: ['forkArms'], rows: forkRows },
];
