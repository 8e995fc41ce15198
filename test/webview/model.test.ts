/**
 * The panel's DOM-free parts in Node: Wilson intervals against textbook values, pass@k against
 * brute-force enumeration, route drawing, question states, the table's query, restored UI state,
 * the headline on real summaries, and the synthetic runs against the run-file schema.
 * Run: npx tsc -p . && node --test out/test/webview/model.test.js
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { summarize } from '../../src/audit/results/summary';
import { validateManifest, validateRecord, validateSummary } from '../../src/audit/store/runFileValidation';
import { passAtK, rateOf, wilsonInterval, type QuestionRecord } from '../../src/contract';
import { RATE_MIN_QUESTIONS } from '../../src/contract/questionStory';
import { headlineMetrics } from '../../webview/src/headline/headlineMetrics';
import { shownPassAtK } from '../../webview/src/charts/passAtKInterval';
import { QuestionIndex } from '../../webview/src/questions/questionIndex';
import { BASE_FILTERS, deriveRow, Flag, probeFilter } from '../../webview/src/questions/questionRow';
import { describeRoute, routeCells } from '../../webview/src/questions/routeLayout';
import { computeStatistics } from '../../webview/src/charts/runStatistics';
import { defaultUiState, readUiState } from '../../webview/src/uiState';
import { deployed, repairScan, testRecord } from '../support/questionRecord';
import { makeSyntheticRun } from './syntheticRun';

const close = (actual: number, expected: number, digits = 4) =>
  assert.ok(Math.abs(actual - expected) < 10 ** -digits, `${actual} ≈ ${expected}`);

describe('wilson', () => {
  test('matches textbook 95% intervals', () => {
    // Newcombe (1998), Table I, and the closed forms at the edges.
    let w = wilsonInterval(81, 263);
    close(w.lo, 0.2553);
    close(w.hi, 0.3662);
    w = wilsonInterval(15, 148);
    close(w.lo, 0.0624);
    close(w.hi, 0.1605);
    w = wilsonInterval(0, 20);
    assert.equal(w.lo, 0);
    close(w.hi, 0.1611);
    w = wilsonInterval(29, 29);
    close(w.lo, 0.8830);
    assert.equal(w.hi, 1);
    w = wilsonInterval(5, 10);
    close(w.lo, 0.2366);
    close(w.hi, 0.7634);
  });

  test('n = 0 gives the whole interval, and the panel shows no rate for it', () => {
    const w = rateOf(0, 0);
    assert.deepEqual(w.ci, { lo: 0, hi: 1 });
    assert.equal(w.n, 0);
  });
});

function choose(n: number, k: number): number {
  let r = 1;
  for (let i = 0; i < k; i++) r = (r * (n - i)) / (i + 1);
  return r;
}

/** pass@k by enumerating every k-subset of n attempts with c correct. */
function bruteForcePassAtK(n: number, c: number, k: number): number {
  const attempts = Array.from({ length: n }, (_, i) => i < c);
  let hits = 0;
  let total = 0;
  const walk = (start: number, left: number, anyCorrect: boolean): void => {
    if (left === 0) {
      total++;
      if (anyCorrect) hits++;
      return;
    }
    for (let i = start; i <= n - left; i++) walk(i + 1, left - 1, anyCorrect || attempts[i]);
  };
  walk(0, k, false);
  assert.equal(total, choose(n, k));
  return hits / total;
}

describe('passAtK', () => {
  test('equals brute-force enumeration over all k-subsets', () => {
    for (let n = 1; n <= 9; n++) for (let c = 0; c <= n; c++) for (let k = 1; k <= n; k++) close(passAtK(n, c, k), bruteForcePassAtK(n, c, k), 12);
  });

  test('is stable for large n', () => {
    close(passAtK(1000, 1, 1), 0.001, 12);
    close(passAtK(1000, 0, 500), 0, 12);
    assert.equal(passAtK(200, 150, 100), 1);
  });

});

describe('pass@k intervals the Charts tab shows', () => {
  const curveOf = (run: ReturnType<typeof makeSyntheticRun>, probe: string) => {
    const index = new QuestionIndex(run.records);
    return computeStatistics(index.rows, index.probes, 8).passAtK.find((c) => c.probe === probe)!;
  };

  test("a finished run: every interval is summary.json's (bootstrap or Wilson), none made up", () => {
    const run = makeSyntheticRun({ n: 60, budget: 4, seed: 11 });
    for (const probe of ['sample', 'routes', 'search']) {
      const shown = shownPassAtK(probe, curveOf(run, probe).points, run.summary);
      assert.equal(shown.length, 4);
      for (const p of shown) assert.deepEqual(p.ci, run.summary!.passAtKCi[probe][String(p.k)], `${probe} pass@${p.k}`);
    }
  });

  test('below 20 questions a fractional pass@k has no interval and says so; a 0/1 one keeps its Wilson interval', () => {
    const run = makeSyntheticRun({ n: 12, budget: 4, seed: 11 });
    const shown = shownPassAtK('sample', curveOf(run, 'sample').points, run.summary);
    const fractional = shown.filter((p) => run.summary!.passAtKCi.sample[String(p.k)] === undefined);
    assert.ok(fractional.length > 0, 'the synthetic run has a fractional pass@k');
    for (const p of fractional) assert.deepEqual([p.ci, p.missing], [null, 'no interval below 20 questions']);
    const atB = shown[3];
    const reached = run.records.filter((r) => r.reachable.sample).length;
    assert.deepEqual(atB.ci, wilsonInterval(reached, 12), 'pass@B: every value is 0 or 1');
  });

  test('a run without its summary: Wilson where every value is 0 or 1, else none until the summary comes', () => {
    const run = makeSyntheticRun({ n: 60, budget: 4, seed: 11 });
    const shown = shownPassAtK('sample', curveOf(run, 'sample').points, undefined);
    assert.deepEqual(shown[3].ci, run.summary!.passAtKCi.sample['4']);
    for (const p of shown.slice(0, 3)) assert.deepEqual([p.ci, p.missing], [null, "bootstrap interval with the finished run's summary"]);
    // The search's first-k curve is 0/1 at every k: Wilson throughout, as its summary gives.
    const search = shownPassAtK('search', curveOf(run, 'search').points, undefined);
    for (const p of search) assert.deepEqual(p.ci, run.summary!.passAtKCi.search[String(p.k)]);
  });

  test('a summary of other questions (or with a bound that is not a number) lends no interval', () => {
    const run = makeSyntheticRun({ n: 60, budget: 4, seed: 11 });
    const other = makeSyntheticRun({ n: 61, budget: 4, seed: 11 }).summary;
    const shown = shownPassAtK('sample', curveOf(run, 'sample').points, other);
    assert.equal(shown[0].ci, null);
    const broken = structuredClone(run.summary!);
    broken.passAtKCi.sample['1'] = { lo: Number.NaN, hi: 0.5 };
    assert.deepEqual(shownPassAtK('sample', curveOf(run, 'sample').points, broken)[0].ci, null);
  });
});

describe('route drawing', () => {
  test('identity, skip, repeat and a repeated span', () => {
    assert.deepEqual(routeCells([0, 1, 2, 3], 4).map((c) => c.kind), ['identity', 'identity', 'identity', 'identity']);
    assert.deepEqual(routeCells([0, 1, 3], 4), [
      { block: 0, kind: 'identity' },
      { block: 1, kind: 'identity' },
      { block: 2, kind: 'skip' },
      { block: 3, kind: 'identity' },
    ]);
    assert.deepEqual(routeCells([0, 1, 2, 2, 3, 5, 6, 7], 8).map((c) => `${c.block}${c.kind[0]}`), ['0i', '1i', '2i', '2r', '3i', '4s', '5i', '6i', '7i']);
    assert.deepEqual(routeCells([0, 1, 2, 3, 2, 3, 4], 6).map((c) => `${c.block}${c.kind[0]}`), ['0i', '1i', '2i', '3i', '2r', '3r', '4i', '5s']);
    assert.equal(describeRoute([0, 1, 2, 3], 4), 'identity route, 4 blocks');
    assert.equal(describeRoute([0, 1, 2, 2, 3, 5, 6, 7], 8), 'route 0 1 2 2 3 5 6 7; 8 positions; skips 4; repeats 2');
  });
});

describe('question states', () => {
  test('realized, reachable, blind, repaired, unreached, truncated', () => {
    const realized = deriveRow(testRecord('a', 1, { realized: deployed(true, '1'), reachable: { sample: true }, repair: repairScan(false, true, { 0: false, 1: true }) }), 0);
    assert.equal(realized.flags & (Flag.realized | Flag.reachable | Flag.damaged), Flag.realized | Flag.reachable | Flag.damaged);
    assert.deepEqual(realized.damagedBy, [0]);
    assert.deepEqual(realized.repairedBy, []);

    const repaired = deriveRow(testRecord('b', 2, { reachable: { sample: false, routes: true }, blind: { routes: { majority: { answer: '1', correct: true, attempt: 0 } } }, repair: repairScan(true, false, { 10: true, 2: true, 3: false }) }), 1);
    assert.deepEqual(repaired.reachableBy, ['routes']);
    assert.deepEqual(repaired.blindBy, ['routes/majority']);
    assert.deepEqual(repaired.repairedBy, [2, 10], 'blocks in numeric order');
    assert.ok(repaired.flags & Flag.failureSet && repaired.flags & Flag.repaired && !(repaired.flags & Flag.unreached));

    const unreached = deriveRow(testRecord('c', 3, { realized: { ...deployed(false), answer: null, truncated: true }, reachable: { sample: false } }), 2);
    assert.ok(unreached.flags & Flag.unreached && unreached.flags & Flag.truncated);
    assert.equal(unreached.answer, '');

    // No repair scan: reachable and not realized counts as the failure set.
    const noScan = deriveRow(testRecord('d', 4, { reachable: { sample: true } }), 3);
    assert.deepEqual(noScan.reachableBy, ['sample']);
    assert.ok(noScan.flags & Flag.failureSet, 'reachable and not realized is the failure set when no repair scan ran');
  });
});

describe('question index', () => {
  const run = makeSyntheticRun({ n: 600, budget: 4, seed: 9 });
  const index = new QuestionIndex(run.records);
  const filters = [...BASE_FILTERS, ...index.probes.map(probeFilter)];
  const query = (over: Partial<Parameters<QuestionIndex['query']>[0]>) => index.query({ filter: 'all', search: '', truncatedOnly: false, sort: { key: 'id', descending: false }, ...over }, filters);

  test('filters agree with the records', () => {
    assert.equal(query({}).length, 600);
    assert.equal(query({ filter: 'realized' }).length, run.records.filter((r) => r.realized.correct).length);
    assert.equal(query({ filter: 'probe:search' }).length, run.records.filter((r) => r.reachable?.search).length);
    assert.equal(query({ filter: 'failureSet' }).length, run.records.filter((r) => r.repair?.inFailureSet).length);
    assert.equal(query({ truncatedOnly: true }).length, run.records.filter((r) => r.realized.truncated).length);
    assert.equal(query({ filter: 'no-such-filter' }).length, 600, 'an unknown stored filter falls back to all');
  });

  test('search is case-insensitive and needs every word', () => {
    const expected = run.records.filter((r) => /apples/i.test(r.question ?? '') && /natalia/i.test(r.question ?? '')).length;
    assert.ok(expected > 0);
    assert.equal(query({ search: 'APPLES  natalia' }).length, expected);
    assert.deepEqual(query({ search: 'q-00042' }).map((r) => r.id), ['q-00042']);
    assert.equal(query({ search: '<img src=x' }).length, run.records.filter((r) => r.question?.includes('<img src=x')).length);
  });

  test('sorts numerically-aware, both directions, stable by run order', () => {
    const golds = query({ sort: { key: 'gold', descending: false } }).map((r) => Number(r.gold));
    assert.deepEqual(golds, golds.slice().sort((a, b) => a - b));
    const down = query({ sort: { key: 'gold', descending: true } }).map((r) => Number(r.gold));
    assert.deepEqual(down, golds.slice().reverse());
    const states = query({ sort: { key: 'state', descending: false } }).map((r) => r.stateRank);
    assert.deepEqual(states, states.slice().sort((a, b) => a - b));
  });

  test('an id set (a comparison count) narrows the table, together with the other filters', () => {
    const ids = new Set(['q-00003', 'q-00001', 'q-00599', 'not-in-this-run']);
    assert.deepEqual(query({ ids }).map((r) => r.id), ['q-00001', 'q-00003', 'q-00599'], 'in display order; an id the run lacks is skipped');
    assert.deepEqual(query({ ids, sort: { key: 'id', descending: true } }).map((r) => r.id), ['q-00599', 'q-00003', 'q-00001']);
    const realized = query({ ids, filter: 'realized' }).map((r) => r.id);
    assert.deepEqual(realized, ['q-00001', 'q-00003', 'q-00599'].filter((id) => run.records.find((r) => r.id === id)!.realized.correct));
    assert.deepEqual(query({ ids, search: 'q-00599' }).map((r) => r.id), ['q-00599']);
    assert.equal(query({ ids: new Set() }).length, 0, 'an empty set shows nothing (an empty transition cell)');
    // A dataset without ids: the audit's ids are the line numbers, as text.
    const numeric = new QuestionIndex([testRecord('7', 7), testRecord('8', 8)]);
    assert.deepEqual(numeric.query({ filter: 'all', search: '', truncatedOnly: false, sort: { key: 'id', descending: false }, ids: new Set(['8']) }, BASE_FILTERS).map((r) => r.id), ['8']);
  });

  test('a record with a known id replaces the old one (live updates)', () => {
    const live = new QuestionIndex([testRecord('x', 1)]);
    live.add([testRecord('x', 1, { realized: deployed(true) })]);
    assert.equal(live.size, 1);
    assert.ok(live.get('x')!.flags & Flag.realized);
  });
});

describe('run statistics', () => {
  test('the live pass@k is summary.json\'s: search reads its first k attempts, the other probes the unbiased estimator', () => {
    const probe = (correct: boolean[]) => ({ budget: 4, attempts: [], correct, cost: { generations: 4, tokens: 4, blockApplications: 4 } });
    const records = [
      // The search found the answer on its third attempt: first-k says 0, 0, 1, 1; the unbiased estimator would say 0.25, 0.5, 0.75, 1.
      testRecord('a', 1, { probes: { search: probe([false, false, true, false]), sample: probe([false, true, false, false]) }, reachable: { search: true, sample: true } }),
      // Fewer attempts than the budget (route space used up): every k-subset holds all of them.
      testRecord('b', 2, { probes: { search: probe([false, true]), sample: probe([false, false, false, false]) }, reachable: { search: true, sample: false } }),
    ];
    const index = new QuestionIndex(records);
    const stats = computeStatistics(index.rows, index.probes, 8);
    const summary = summarize(records);
    const live = (p: string) => stats.passAtK.find((c) => c.probe === p)!;
    assert.equal(live('search').kind, 'first-k');
    assert.equal(live('sample').kind, 'unbiased');
    assert.deepEqual(live('search').points.map((p) => p.mean), [0, 0.5, 1, 1]);
    live('sample').points.forEach((p, i) => close(p.mean, [0.125, 0.25, 0.375, 0.5][i], 12));
    for (const p of ['search', 'sample']) {
      assert.equal(summary.passAtKKind[p], live(p).kind);
      assert.deepEqual(live(p).points.map((x) => x.mean), Object.values(summary.passAtK[p]), p);
    }
  });

  test('counts with Wilson intervals, pass@k and repair by block from the records', () => {
    const run = makeSyntheticRun({ n: 300, budget: 4, seed: 2, numBlocks: 8 });
    const index = new QuestionIndex(run.records);
    const stats = computeStatistics(index.rows, index.probes, 8);
    const realized = run.records.filter((r) => r.realized.correct).length;
    assert.deepEqual(stats.states[0].value, rateOf(realized, 300));
    for (const curve of stats.passAtK) {
      for (const p of curve.points) close(p.mean, run.summary!.passAtK![curve.probe][String(p.k)], 12);
      assert.equal(curve.points.length, 4);
    }
    const block = stats.byBlock.find((b) => b.block === 5)!;
    const failure = run.records.filter((r) => r.repair?.inFailureSet);
    assert.equal(block.repair.n, failure.length);
    assert.equal(block.repair.successes, failure.filter((r) => r.repair!.correctBySilencedBlock['5']).length);
    const scannedRealized = run.records.filter((r) => r.realized.correct && r.repair);
    assert.equal(block.damage.successes, scannedRealized.filter((r) => r.repair!.correctBySilencedBlock['5'] === false).length);
    assert.equal(stats.heatmapRows.length, failure.length);
    // found within b attempts is monotone and ends at the reachable rate
    for (const f of stats.foundWithin) {
      for (let i = 1; i < f.points.length; i++) assert.ok(f.points[i].rate >= f.points[i - 1].rate);
      assert.equal(f.points[f.points.length - 1].successes, run.records.filter((r) => r.reachable?.[f.probe]).length);
    }
  });
});

describe('restored UI state', () => {
  test('keeps valid fields and drops the rest', () => {
    assert.deepEqual(readUiState(undefined), defaultUiState());
    assert.deepEqual(readUiState({ sort: { key: 'gold', descending: true }, filter: 'unreached', search: 'x', truncatedOnly: true, selectedId: 'q1', scrollTop: 260, tab: 'charts' }), {
      sort: { key: 'gold', descending: true },
      filter: 'unreached',
      search: 'x',
      truncatedOnly: true,
      selectedId: 'q1',
      scrollTop: 260,
      tab: 'charts',
    });
    assert.deepEqual(readUiState({ sort: { key: 'evil' }, scrollTop: -5, tab: 'nope', search: 3 }), defaultUiState());
    // compareFolded: an older panel's fold of the comparison, which has a tab of its own now.
    assert.deepEqual(readUiState({ compareFilter: 'transition:reachable>realized', compareFolded: true, tab: 'comparison' }), { ...defaultUiState(), compareFilter: 'transition:reachable>realized', tab: 'comparison' });
    assert.deepEqual(readUiState({ compareFilter: 5, compareFolded: 'yes', tab: 'compare' }), defaultUiState());
  });
});

describe('headline on real summaries', () => {
  /** Failure-set and realized records as the audit writes them; `splitKey`s put f0..f2 in the selection half. */
  function repairRun(repairs: boolean): QuestionRecord[] {
    const records: QuestionRecord[] = [];
    for (let i = 0; i < 6; i++) {
      records.push(testRecord(`f${i}`, i + 1, { reachable: { routes: true }, repair: { ...repairScan(true, false, { '0': false, '1': repairs && i % 2 === 0 }), splitKey: i / 6 } }));
    }
    for (let i = 0; i < 4; i++) records.push(testRecord(`r${i}`, 10 + i, { realized: deployed(true), reachable: { routes: true }, repair: repairScan(false, true, { '0': true, '1': i > 0 }) }));
    return records;
  }
  const metricsOf = (records: QuestionRecord[]) => {
    const index = new QuestionIndex(records);
    return headlineMetrics(computeStatistics(index.rows, index.probes, 2), summarize(records), undefined, false);
  };

  test('the identified block with its held-out n (not the failure set size) and its damage', () => {
    const records = repairRun(true);
    const summary = summarize(records);
    assert.ok(summary.repair && summary.repair.identifiedBlock === 1 && summary.repair.n === 3 && summary.repair.failureSetSize === 6, JSON.stringify(summary.repair));
    const repair = metricsOf(records).find((m) => m.kind === 'repair')!;
    assert.equal(repair.label, 'Repair · block 1');
    assert.match(repair.detail, /n=3 · random block \d+\.\d% · damage 25\.0% of 4 realized$/);
    assert.match(repair.title ?? '', /A block drawn at random per question repairs \d+\.\d% of the same held-out questions/);
    assert.equal(repair.value, `${summary.repair!.repaired} of 3`, 'a held-out half under the rate threshold is a count');
  });

  test('a held-out half of at least the rate threshold shows its repair rate', () => {
    const records: QuestionRecord[] = [];
    for (let i = 0; i < 2 * RATE_MIN_QUESTIONS + 2; i++) {
      records.push(testRecord(`f${i}`, i + 1, { reachable: { routes: true }, repair: { ...repairScan(true, false, { '0': false, '1': i % 4 !== 3 }), splitKey: i / (2 * RATE_MIN_QUESTIONS + 2) } }));
    }
    const summary = summarize(records);
    assert.ok(summary.repair!.n >= RATE_MIN_QUESTIONS, JSON.stringify({ n: summary.repair!.n }));
    const repair = metricsOf(records).find((m) => m.kind === 'repair')!;
    assert.equal(repair.value, `${(100 * summary.repair!.repairRate!).toFixed(1)}%`);
  });

  test('no block identified (the audit writes null): the failure set, never "block null"', () => {
    // An empty selection half: the audit writes identifiedBlock null and repairRate null.
    const records = repairRun(false).filter((r) => !r.repair!.inFailureSet).concat(testRecord('f', 20, { reachable: { routes: true }, repair: { ...repairScan(true, false, { '0': false, '1': false }), splitKey: 0.9 } }));
    const summary = summarize(records);
    assert.equal(summary.repair!.repairRate, null);
    const repair = metricsOf(records).find((m) => m.kind === 'repair')!;
    assert.ok(!/null/.test(`${repair.label} ${repair.value} ${repair.detail}`), JSON.stringify(repair));
    assert.equal(repair.label, 'Failure set');
  });
});

describe('synthetic runs follow the run-file contract', () => {
  test('records, summary and manifest pass the schemas the extension reads them with', () => {
    const run = makeSyntheticRun({ n: 200, budget: 4, seed: 4, numBlocks: 8 });
    run.records.forEach((r, i) => assert.deepEqual(validateRecord(JSON.parse(JSON.stringify(r)), 'synthetic records.jsonl', i + 1), r));
    assert.deepEqual(validateSummary(JSON.parse(JSON.stringify(run.summary)), 'synthetic summary.json'), JSON.parse(JSON.stringify(run.summary)));
    assert.ok(validateManifest(JSON.parse(JSON.stringify(run.manifest)), 'synthetic manifest.json'));
  });
});
