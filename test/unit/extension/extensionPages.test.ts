/**
 * The pure parts of the extension's UI: the panel page and its policy, the Audit view page (every
 * run string escaped, no script), record exports (CSV quoting and formula guarding), question
 * states in words and the Runs tree's question groups.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { auditViewHtml } from '../../../src/extension/sidebar/auditViewHtml';
import { contentSecurityPolicy, panelHtml } from '../../../src/extension/panel/panelHtml';
import { groupQuestions } from '../../../src/extension/editor/runQuestionGroups';
import { questionLabel } from '../../../src/extension/editor/questionLabel';
import { csvField, recordsToCsv, recordsToJson } from '../../../src/extension/panel/recordExport';
import type { QuestionRecord } from '../../../src/contract';
import { deployed, repairScan, testRecord } from '../../support/questionRecord';

const XSS = '<img src=x onerror=alert(1)> </script>';

function record(id: string, line: number, over: Partial<QuestionRecord> = {}): QuestionRecord {
  return testRecord(id, line, { reachable: { routes: false }, ...over });
}

test('the panel page: strict CSP with the nonce, only the bundle, nothing inline', () => {
  const html = panelHtml({ cspSource: 'https://file+.vscode-resource.test', nonce: 'abc123', scriptUri: 'https://x/main.js', styleUri: 'https://x/main.css', title: `Run ${XSS}` });
  const csp = contentSecurityPolicy('https://file+.vscode-resource.test', 'abc123');
  assert.equal(csp, "default-src 'none'; img-src https://file+.vscode-resource.test data:; style-src https://file+.vscode-resource.test; script-src 'nonce-abc123'; font-src https://file+.vscode-resource.test; form-action 'none'; base-uri 'none'; frame-src 'none'; object-src 'none'");
  assert.ok(html.includes(`content="${csp}"`));
  assert.ok(html.includes('<script nonce="abc123" src="https://x/main.js"></script>'));
  assert.equal((html.match(/<script/g) ?? []).length, 1);
  assert.ok(!html.includes('<img'), 'the title is escaped');
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt; &lt;/script&gt;'));
});

test('the Audit view escapes run names and carries no script', () => {
  const html = auditViewHtml(
    {
      name: XSS,
      folder: '/w/.reach-audit/runs/r',
      headline: { n: 4, realized: { rate: 0.25, n: 4, successes: 1, ci: { lo: 0.046, hi: 0.699 } }, reachable: [{ probe: 'routes', rate: { rate: 0.5, n: 4, successes: 2, ci: { lo: 0.15, hi: 0.85 } } }], reachableAny: { rate: 0.5, n: 4, successes: 2, ci: { lo: 0.15, hi: 0.85 } }, blind: [], states: { realized: 1, reachableNotRealized: 1, unreached: 2 } },
      states: { realized: 1, reachableNotRealized: 1, unreached: 2 },
      recorded: 4,
    },
    'n0nce',
  );
  assert.ok(!html.includes('<img') && !html.includes('</script>'));
  assert.ok(!/<script/i.test(html));
  assert.ok(html.includes("style-src 'nonce-n0nce'"));
  assert.ok(html.includes('n = 4 questions'));
  assert.ok(html.includes('<span class="nw">25.0%</span> <span class="nw">(1/4,</span> <span class="nw">95% CI</span> <span class="nw">4.6–69.9%)</span>'), 'the number in pieces a narrow view can wrap between');
  assert.ok(html.includes('Unreached · 2'));
  // Bars scale with counts: 2 of 4 questions → half the 200-unit track.
  assert.ok(html.includes('class="bar-unreached" x="0" y="83" width="100.0"'));
});

test('CSV export quotes RFC 4180 fields and defuses spreadsheet formulas', () => {
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField('line\nbreak'), '"line\nbreak"');
  assert.equal(csvField('=HYPERLINK("x")'), '"\'=HYPERLINK(""x"")"');
  assert.equal(csvField('-3'), '-3');
  const records = [record('a', 1, { reachable: { routes: true }, repair: repairScan(true, false, { '0': false, '2': true, '1': true }) }), record('b,2', 2, { question: XSS })];
  const csv = recordsToCsv(records);
  const lines = csv.trimEnd().split('\r\n');
  assert.equal(lines[0], 'id,line,question,gold,answer,rule,realized,reachable_routes,failure_set,repaired_by_blocks');
  assert.equal(lines[1], 'a,1,q a,4,3,strict,false,true,true,1 2');
  assert.equal(lines[2], `"b,2",2,${XSS},4,3,strict,false,false,,`);
  assert.deepEqual(JSON.parse(recordsToJson(records)), records);
});

test('CSV export: a realized question is never "repaired" (its true entries mean it survived the silencing)', () => {
  // What the audit writes for a realized question: the scan measures damage, so most blocks keep it correct.
  const realized = record('r', 1, { realized: deployed(true), reachable: { routes: true }, repair: repairScan(false, true, { '0': true, '1': false, '2': true }) });
  const failure = record('f', 2, { reachable: { routes: true }, repair: repairScan(true, false, { '0': false, '1': false, '2': true }) });
  const lines = recordsToCsv([realized, failure]).trimEnd().split('\r\n');
  assert.equal(lines[1], 'r,1,q r,4,4,strict,true,true,false,');
  assert.equal(lines[2], 'f,2,q f,4,3,strict,false,true,true,2');
});

test('question states in words and the tree groups', () => {
  assert.equal(questionLabel(record('r', 1, { realized: deployed(true) })).label, 'realized');
  assert.equal(questionLabel(record('u', 2)).label, 'unreached');
  // An imported question no probe ran on is not probed, not unreached.
  assert.equal(questionLabel(testRecord('n', 5, { reachable: {} })).label, 'not probed');
  assert.equal(questionLabel(record('s', 3, { reachable: { routes: true, sample: true } })).label, 'reachable by routes, sample');
  const repaired = record('p', 4, { reachable: { routes: true }, repair: repairScan(true, false, { '3': true, '1': false }) });
  assert.equal(questionLabel(repaired).label, 'reachable by routes; repaired by block 3');
  const groups = groupQuestions([record('u', 2), repaired, record('r', 1, { realized: deployed(true), repair: repairScan(false, true, {}) })]);
  assert.deepEqual(groups.byState.unreached.map((q) => q.id), ['u']);
  assert.deepEqual(groups.byState.repaired.map((q) => [q.id, q.line]), [['p', 4]]);
  assert.deepEqual(groups.byState.realized.map((q) => q.id), ['r']);
  assert.deepEqual(groups.failureSet?.map((q) => q.id), ['p']);
  assert.equal(groupQuestions([record('u', 2)]).failureSet, undefined);
});
