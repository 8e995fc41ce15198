/**
 * Run files are untrusted (the extension shows existing runs even in untrusted workspaces): a run
 * and a comparison whose every value — numbers included — is replaced by markup that would
 * navigate (meta refresh), submit a password (a form), load a resource or run script, rendered
 * into the HTML report and the Audit side view and opened in Debian's Chromium. Nothing may
 * navigate, submit, request or execute, and the payload must show as text.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { auditQuestions } from '../../src/audit/runner/questionPipeline';
import { comparisonReportHtml, runReportHtml } from '../../src/audit/report/htmlReport';
import type { QuestionRecord, RunSummary, StoredComparison } from '../../src/contract';
import { compareRecords } from '../../src/audit/results/compare';
import { summarize } from '../../src/audit/results/summary';
import { auditViewHtml, type AuditViewContent } from '../../src/extension/sidebar/auditViewHtml';
import { fakeFor, settingsFor, smallDataset } from '../unit/audit/fixtures';
import { launchBrowser, type Browser } from './harness';

let server: Server;
const hits: string[] = [];
let payload = '';
let browser: Browser;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-hostile-'));

/** Every number and string in `value` replaced by the payload; every record-like object gets a payload key too. */
function poison(value: unknown, depth = 0): unknown {
  if (typeof value === 'number' || typeof value === 'string') return payload;
  if (Array.isArray(value)) return value.map((v) => poison(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = poison(v, depth + 1);
    return out;
  }
  return value;
}

/** The same shape, with hostile text only where the schema has free text and map keys (a run that would pass validation). */
function hostileKeys(s: RunSummary): RunSummary {
  const copy = JSON.parse(JSON.stringify(s)) as RunSummary;
  const first = <T>(m: Record<string, T>) => Object.values(m)[0];
  copy.reachable[payload] = first(copy.reachable);
  copy.budget[payload] = first(copy.budget);
  copy.blind[payload] = first(copy.blind);
  copy.passAtK[payload] = first(copy.passAtK);
  copy.passAtKKind[payload] = payload as never;
  return copy;
}

async function renderChecks(file: string, html: string, expectPayloadText: boolean): Promise<void> {
  fs.writeFileSync(file, html);
  const page = await browser.context.newPage();
  const url = pathToFileURL(file).href;
  const requests: string[] = [];
  const navigations: string[] = [];
  const dialogs: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('framenavigated', (f) => navigations.push(f.url()));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(url);
  // Try what a user would: hover and click every element, press Enter; then wait past the payload's 1 s refresh.
  for (const handle of await page.$$('body *')) {
    await handle.hover({ force: true, timeout: 200 }).catch(() => undefined);
    await handle.click({ force: true, timeout: 200, noWaitAfter: true }).catch(() => undefined);
  }
  await page.keyboard.press('Enter');
  await page.waitForTimeout(1500);
  const state = (await page.evaluate(`({
    pwned: window.__pwned ?? null,
    url: location.href,
    active: document.querySelectorAll('script, form, input, button, iframe, object, embed, base, a[href], meta[http-equiv="refresh" i], meta[http-equiv="Refresh"], [onerror], [onload], [onclick], [onmouseover], [style*="url("]').length,
    text: document.body.textContent,
  })`)) as { pwned: unknown; url: string; active: number; text: string };
  await page.close();
  assert.equal(state.pwned, null, `${path.basename(file)}: no payload script ran`);
  assert.equal(state.url, url, `${path.basename(file)}: the page did not navigate`);
  assert.deepEqual(navigations, [url], `${path.basename(file)}: one navigation, the page itself`);
  assert.deepEqual(requests, [url], `${path.basename(file)}: nothing requested but the page`);
  assert.deepEqual(dialogs, []);
  assert.equal(state.active, 0, `${path.basename(file)}: no active element came from a run file`);
  if (expectPayloadText) assert.ok(state.text.includes('<form action='), `${path.basename(file)}: the payload shows as text`);
  assert.deepEqual(hits, [], 'the local server saw no request, navigation or form post');
}

describe('hostile run files in Chromium', () => {
  let records: QuestionRecord[] = [];
  before(async () => {
    hits.length = 0;
    server = createServer((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.end('ok');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    payload =
      `<meta http-equiv="refresh" content="1;url=${target}/navigated">` +
      `<form action="${target}/submit" method="post"><input name="password" value="hunter2" autofocus><button>Sign in</button></form>` +
      `<img src="${target}/img" onerror="window.__pwned=1"><script>window.__pwned=2</script><svg onload="window.__pwned=3"></svg>` +
      `<a href="${target}/link">x</a>" onmouseover="window.__pwned=4" x="' onclick='window.__pwned=5`;
    const dataset = smallDataset(12);
    await auditQuestions(fakeFor(dataset), dataset.questions, settingsFor(), { onRecord: (r) => records.push(r) }, { inFlight: 4 });
    records = records.map((r, i) => (i % 3 === 0 ? { ...r, id: `${r.id}${payload}`, question: payload, gold: payload, realized: { ...r.realized, answer: payload } } : r));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await new Promise<void>((done) => server.close(() => done()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('report --html: a summary whose every value is markup', async () => {
    const summary = summarize(records);
    const poisoned = poison(summary) as RunSummary;
    await renderChecks(path.join(dir, 'run-values.html'), runReportHtml({ name: payload, model: payload, dataset: payload, summary: poisoned, records, unfinished: { done: payload as never, total: payload as never } }), true);
    await renderChecks(path.join(dir, 'run-keys.html'), runReportHtml({ name: payload, model: payload, dataset: payload, summary: hostileKeys(summary), records }), true);
  });

  test('report --html: a comparison whose every value is markup', async () => {
    const summary = summarize(records);
    const comparison = compareRecords(records, records.slice().reverse());
    const stored: StoredComparison = {
      kind: 'reach-audit-comparison',
      createdAt: payload,
      base: { folder: payload, name: payload, model: payload, summary: poison(summary) as RunSummary },
      tuned: { folder: payload, name: payload, model: payload, summary: hostileKeys(summary) },
      comparison: poison(comparison) as typeof comparison,
    };
    await renderChecks(path.join(dir, 'comparison.html'), comparisonReportHtml(stored, records, records), true);
  });

  test('the Audit side view: a run name and state counts that are markup', async () => {
    const content = { name: payload, folder: payload, recorded: payload, states: { realized: payload, reachableNotRealized: payload, unreached: payload } } as unknown as AuditViewContent;
    await renderChecks(path.join(dir, 'audit-view.html'), auditViewHtml(content, 'n0nce'), true);
    await renderChecks(path.join(dir, 'audit-view-unfinished.html'), auditViewHtml({ name: payload, folder: payload, recorded: payload } as unknown as AuditViewContent, 'n0nce'), true);
  });
});
