/**
 * The blind-vs-oracle share in words: a share (0–100%) only between the deployment and the probe's
 * reach; below the deployment, with no gain, or beyond the probe's reach it is said in words with
 * the rates it compares (interval and n), never as a negative or >100% "retention".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blindRetention, type RetentionOutcome } from '../../../src/audit/results/blindRetention';
import { retentionLine, retentionReading } from '../../../src/audit/report/retentionText';
import { formatSummary } from '../../../src/audit/report/summaryText';
import { runReportHtml } from '../../../src/audit/report/htmlReport';
import { summarize } from '../../../src/audit/results/summary';
import { rateOf, type BlindRetention } from '../../../src/contract';
import { deployed, testRecord } from '../../support/questionRecord';

/** n questions: the first `realized` realized, the first `reachable` reachable, `blind` of them picked right by the selector. */
function outcomes(n: number, realized: number, reachable: number, blindRight: (i: number) => boolean): RetentionOutcome[] {
  return Array.from({ length: n }, (_, i) => ({ realized: i < realized, reachable: i < reachable, blind: blindRight(i) }));
}

const NEGATIVE_OR_OVER = /[−-]\d+(\.\d+)?%|\b(1\d\d|[2-9]\d\d+)(\.\d+)?%/;

test('blind below the deployment: said in words with both rates, never "−450%"', () => {
  // 40 questions, the deployment right on 10, the probe reaching 12, the blind pick right on 1: the old ratio was −450%.
  const kept = blindRetention(outcomes(40, 10, 12, (i) => i === 0), ['t']);
  assert.ok(Math.abs(kept.retained! - -4.5) < 1e-12, 'the ratio summary.json keeps is unchanged');
  const reading = retentionReading('routes', kept);
  assert.equal(reading.kind, 'below');
  assert.equal(reading.verdict, "below the deployment: it loses more realized answers than it recovers of the routes probe's gain");
  assert.equal(
    reading.basis,
    `blind 2.5% [${pctOf(kept.blind.ci.lo)}, ${pctOf(kept.blind.ci.hi)}] vs deployed 25.0% [${pctOf(kept.realized.ci.lo)}, ${pctOf(kept.realized.ci.hi)}]; reachable by routes 30.0% [${pctOf(kept.reachable.ci.lo)}, ${pctOf(kept.reachable.ci.hi)}]; n = 40`,
  );
  assert.doesNotMatch(retentionLine('routes', kept), NEGATIVE_OR_OVER);
});

test('retention split: recovered on the gain set and lost on realized questions, each a count with its Wilson interval', () => {
  // 40 questions, the deployment right on 10, the probe reaching 12, the blind pick right on 1 (a realized one).
  const kept = blindRetention(outcomes(40, 10, 12, (i) => i === 0), ['t']);
  assert.deepEqual([kept.recovered?.blind.successes, kept.recovered?.blind.n, kept.recovered?.reachable.successes, kept.lost?.successes, kept.lost?.n], [0, 30, 2, 9, 10]);
  // Wilson (1927) 9 of 10 written out: centre (p + z²/2n)/(1 + z²/n), half z/(1 + z²/n)·sqrt(p(1 − p)/n + z²/4n²).
  const z = 1.959963984540054;
  const centre = (0.9 + (z * z) / 20) / (1 + (z * z) / 10);
  const half = (z / (1 + (z * z) / 10)) * Math.sqrt(0.09 / 10 + (z * z) / 400);
  assert.ok(Math.abs(kept.lost!.ci.lo - (centre - half)) < 1e-12 && Math.abs(kept.lost!.ci.hi - (centre + half)) < 1e-12);
  assert.equal(kept.recovered!.blind.ci.lo, 0);
  assert.match(retentionLine('routes', kept), /; recovers 0 of the 30 questions the deployment misses \(0\.0% \[0\.0%, 11\.4%\]; routes reaches 2, 6\.7% \[1\.8%, 21\.3%\]\); loses 9 of the 10 realized \(90\.0% \[59\.6%, 98\.2%\]\)$/);
});

test('blind below the deployment while the probe gains nothing either', () => {
  // The shipped demo base run's routes row: deployment 4 of 8, routes reaches 2, blind 2.
  const kept = blindRetention(outcomes(8, 4, 2, (i) => i < 2), ['t']);
  assert.equal(kept.retained, null);
  const reading = retentionReading('routes', kept);
  assert.equal(reading.kind, 'below');
  assert.equal(reading.verdict, 'below the deployment; routes reaches no more than the deployment either');
  assert.match(reading.basis, /^blind 25\.0% \[7\.1%, 59\.1%\] vs deployed 50\.0% \[21\.5%, 78\.5%\]; reachable by routes 25\.0% \[7\.1%, 59\.1%\]; n = 8$/);
});

test('reachable = deployment: no gain to keep, the rates compared', () => {
  const kept = blindRetention(outcomes(20, 5, 5, (i) => i < 5), ['t']);
  const reading = retentionReading('sample', kept);
  assert.equal(reading.kind, 'noGain');
  assert.equal(reading.verdict, "keeps — of the sample probe's gain: sample reaches no more than the deployment");
  assert.match(reading.basis, /^reachable by sample 25\.0% \[\d+\.\d%, \d+\.\d%\] vs deployed 25\.0% \[\d+\.\d%, \d+\.\d%\]; blind 25\.0% \[\d+\.\d%, \d+\.\d%\]; n = 20$/);
});

test('a gain the blind pick keeps none of: 0%, a share like any other', () => {
  const kept = blindRetention(outcomes(20, 4, 14, (i) => i < 4), ['t']);
  const reading = retentionReading('routes', kept);
  assert.equal(reading.kind, 'keeps');
  assert.match(reading.verdict, /^keeps 0\.0% \[(<0%|\d+\.\d%), \d+\.\d%\] of the routes probe's gain over the deployment, \(blind − realized\)\/\(reachable − realized\)$/);
  assert.match(reading.basis, /^blind 20\.0% \[.*\] vs deployed 20\.0% \[.*\] vs reachable by routes 70\.0% \[.*\]; n = 20$/);
});

test('a share between the deployment and the reach, its interval bounds outside 0–100% said as <0% / >100%', () => {
  const kept = blindRetention(outcomes(20, 4, 14, (i) => i < 7), ['t']);
  assert.match(retentionReading('routes', kept).verdict, /^keeps 30\.0% \[\d+\.\d%, \d+\.\d%\] of the routes probe's gain/);
  const wide: BlindRetention = { ...kept, ci: { lo: -0.25, hi: 1.4 } };
  assert.match(retentionReading('routes', wide).verdict, /^keeps 30\.0% \[<0%, >100%\] of the routes probe's gain/);
  const unknown: BlindRetention = { ...kept, ci: null };
  assert.match(retentionReading('routes', unknown).verdict, /^keeps 30\.0% \[—\]/);
});

test('beyond the probe\'s reach (a selector outside its attempts, as global-route): not a share', () => {
  // The global route is right on 3 questions no random route reached.
  const kept = blindRetention(outcomes(20, 4, 10, (i) => i < 13), ['t']);
  assert.ok(kept.retained! > 1);
  const reading = retentionReading('routes', kept);
  assert.equal(reading.kind, 'beyond');
  assert.equal(reading.verdict, "beyond the routes probe's reach: right more often than any routes attempt (not a share of its gain)");
  assert.match(reading.basis, /^blind 65\.0% \[.*\] vs reachable by routes 50\.0% \[.*\]; deployed 20\.0% \[.*\]; n = 20$/);
  assert.doesNotMatch(retentionLine('routes', kept), NEGATIVE_OR_OVER);
});

test('no question: n = 0', () => {
  const empty: BlindRetention = { n: 0, blind: rateOf(0, 0), realized: rateOf(0, 0), reachable: rateOf(0, 0), retained: null, ci: null, undefinedResamples: 0 };
  assert.equal(retentionLine('routes', empty), "keeps — of the routes probe's gain (n = 0)");
});

test('the text and HTML reports of a run whose blind pick is below the deployment say so, with no negative share', () => {
  // 20 questions: the deployment right on 10, the routes probe reaching 12, the majority pick right on 2.
  const records = Array.from({ length: 20 }, (_, i) =>
    testRecord(`q${i}`, i + 1, {
      realized: deployed(i < 10),
      probes: { routes: { budget: 1, attempts: [], correct: [], cost: { generations: 0, tokens: 0, blockApplications: 0 } } },
      reachable: { routes: i < 12 },
      blind: { routes: { majority: { answer: null, correct: i < 2, attempt: 0 } } },
    }),
  );
  const summary = summarize(records);
  assert.equal(summary.blindRetention.routes.majority.retained, -4);
  const text = formatSummary(summary);
  assert.match(text, /\n {6}below the deployment: it loses more realized answers than it recovers of the routes probe's gain \(blind 10\.0% \[\d+\.\d%, \d+\.\d%\] vs deployed 50\.0% \[\d+\.\d%, \d+\.\d%\]; reachable by routes 60\.0% \[\d+\.\d%, \d+\.\d%\]; n = 20\)/);
  assert.doesNotMatch(text, /−400|-400/);
  // The net said apart: none recovered of the 10 the deployment misses (routes reaches 2 of them), 8 lost of the 10 realized.
  assert.match(text, /n = 20\); recovers 0 of the 10 questions the deployment misses \(0\.0% \[0\.0%, 27\.8%\]; routes reaches 2, 20\.0% \[5\.7%, 51\.0%\]\); loses 8 of the 10 realized \(80\.0% \[49\.0%, 94\.3%\]\)\n/);
  const html = runReportHtml({ name: 'run', model: '/m', dataset: '/d', summary, records });
  assert.match(html, /<th class="sub">share of the routes probe's gain kept<\/th><td>below the deployment: it loses more realized answers than it recovers of the routes probe&#39;s gain<\/td><td class="n">blind 10\.0% \[/);
  assert.doesNotMatch(html, /−400|-400/);
  assert.match(html, /recovered on the gain set \/ lost on realized<\/th><td colspan="2" class="n">recovers 0 of the 10 questions/);
});

function pctOf(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}

test('below 20 questions the share has no percentile-bootstrap interval, and says so', () => {
  // 10 questions: the deployment right on 2, the probe reaching 7, the blind pick right on 4 (2 of the 5 gained).
  const kept = blindRetention(outcomes(10, 2, 7, (i) => i < 4), ['t']);
  assert.ok(Math.abs(kept.retained! - 0.4) < 1e-12);
  assert.equal(kept.ci, null);
  assert.equal(kept.undefinedResamples, 0);
  assert.match(retentionReading('routes', kept).verdict, /^keeps 40\.0% \(no bootstrap interval below 20 questions\) of the routes probe's gain/);
  assert.deepEqual([kept.recovered?.blind.successes, kept.recovered?.blind.n, kept.lost?.successes], [2, 8, 0]);
});
