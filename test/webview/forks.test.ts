/**
 * The fork probe in the panel, in Chromium under the extension's CSP: the detail pane shows the
 * deployed output token by token shaded by entropy with a legend, the forks tried with ✓ / ✗, the
 * earliest saving fork highlighted, and clicking a fork shows its branch. The records are the CLI's
 * own (test/fixtures/forks, from the demo); one is given hostile model text, which must stay text.
 * Run: npx tsc -p . && node --test out/test/webview/forks.test.js
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { QuestionRecord, RunData } from '../../src/contract';
import { openedPanel, ROOT, waitFor, type OpenedPanel } from './harness';
import { makeSyntheticRun, XSS_IMG, XSS_SCRIPT } from './syntheticRun';

async function evaluate<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

type ForkFields = Pick<QuestionRecord, 'id' | 'realized' | 'deployedTokens' | 'fork'>;

function demoRecords(): Map<string, ForkFields> {
  const text = readFileSync(join(ROOT, 'test', 'fixtures', 'forks', 'demo-fork-records.jsonl'), 'utf8');
  return new Map(text.trim().split('\n').map((line) => {
    const r = JSON.parse(line) as ForkFields;
    return [r.id, r];
  }));
}

const SAVED = 'arith-A03-0003';
const UNSAVED = 'arith-A00-0000';
const REALIZED = 'arith-A01-0001';

function forkRun(): { run: RunData; saved: QuestionRecord; hostile: QuestionRecord; realized: QuestionRecord; plain: QuestionRecord; demo: Map<string, ForkFields> } {
  const demo = demoRecords();
  const run = makeSyntheticRun({ n: 30, budget: 4, seed: 7, runId: 'forks', label: 'forks' });
  const [saved, hostile, realized, plain] = run.records.slice(2, 6);
  const put = (r: QuestionRecord, from: ForkFields) => {
    r.realized = structuredClone(from.realized);
    r.deployedTokens = structuredClone(from.deployedTokens);
    if (from.fork) r.fork = structuredClone(from.fork);
    else delete r.fork;
  };
  put(saved, demo.get(SAVED)!);
  put(hostile, demo.get(UNSAVED)!);
  put(realized, demo.get(REALIZED)!);
  // Model text that looks like markup: in a deployed token, a fork's alternative and its continuations.
  hostile.deployedTokens!.steps[1].text = XSS_IMG;
  hostile.fork!.forks[0].alternative.text = XSS_SCRIPT;
  hostile.fork!.forks[0].greedy.continuation = `${XSS_IMG} then ${XSS_SCRIPT}`;
  hostile.fork!.forks[0].sample.continuation = XSS_SCRIPT;
  // A decided foreclosure window over tokens 2..4 of the saved question's deployed output.
  saved.foreclosure = {
    test: { samples: 48, threshold: 0.1, error: 0.05, look: 4 }, outcome: 'window', bracket: { from: 0, to: 8 }, window: { from: 2, to: 5, chars: [1, 4] },
    prefixes: [{ tokens: 0, samples: 8, successes: 7, decision: 'reaches' }, { tokens: 8, samples: 36, successes: 0, decision: 'not' }], cost: { generations: 44, tokens: 300, blockApplications: 2400 },
  };
  delete plain.deployedTokens;
  delete plain.fork;
  return { run, saved, hostile, realized, plain, demo };
}

interface Shown {
  heading: string;
  line: string;
  legend: string;
  outputText: string;
  tokens: number;
  bands: string[];
  sites: string[];
  earliestToken: string | null;
  rows: string[];
  earliestRows: number[];
  pressed: number[];
  detail: string;
  alternative: string[];
  injected: number;
}

const SHOWN = `(() => {
  const s = document.querySelector('.detail .fork');
  if (!s) return null;
  const pre = s.querySelector('.fork-output');
  const tokens = pre ? Array.from(pre.querySelectorAll('.fork-token')) : [];
  const rows = Array.from(s.querySelectorAll('.fork-row'));
  const detail = s.querySelector('.fork-detail');
  return {
    heading: s.querySelector('h3').textContent,
    line: (s.querySelector('.fork-line') || {}).textContent || '',
    legend: (s.querySelector('.fork-legend') || {}).textContent || '',
    outputText: tokens.map((t) => t.textContent).join(''),
    tokens: tokens.length,
    bands: tokens.map((t) => (t.className.match(/entropy-(\\d)/) || [])[1]),
    sites: pre ? Array.from(pre.querySelectorAll('.fork-site')).map((m) => m.className + ' ' + m.firstChild.textContent) : [],
    earliestToken: pre && pre.querySelector('.fork-earliest') ? pre.querySelector('.fork-earliest').textContent : null,
    rows: rows.map((r) => r.textContent),
    earliestRows: rows.map((r, i) => (r.classList.contains('fork-earliest-row') ? i : -1)).filter((i) => i >= 0),
    pressed: rows.map((r, i) => (r.getAttribute('aria-pressed') === 'true' ? i : -1)).filter((i) => i >= 0),
    detail: detail ? detail.textContent : '',
    alternative: detail ? Array.from(detail.querySelectorAll('.fork-alternative')).map((m) => m.textContent) : [],
    injected: document.querySelectorAll('.detail img, .detail script').length,
  };
})()`;

describe('forks in the detail pane (Chromium, strict CSP)', () => {
  let opened: OpenedPanel;
  let page: Page;
  const { run, saved, hostile, realized, plain, demo } = forkRun();

  async function select(id: string): Promise<void> {
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'selectQuestion', id })})`);
    await waitFor(page, `document.querySelector('.detail h2')?.textContent === ${JSON.stringify(`Question ${id}`)}`);
  }

  before(async () => {
    opened = await openedPanel();
    page = opened.page;
    await evaluate(page, `window.__probes.post(${JSON.stringify({ type: 'loadRun', run })})`);
    await waitFor(page, `document.querySelector('.count').textContent.endsWith('30 questions')`);
  });

  after(async () => {
    await opened?.close();
  });

  test('a saved question: tokens shaded by entropy with a legend, forks with ✓ / ✗, the earliest saving fork highlighted and its branch shown', async () => {
    await select(saved.id);
    const shown = await evaluate<Shown>(page, SHOWN);
    const fork = demo.get(SAVED)!.fork!;
    const steps = demo.get(SAVED)!.deployedTokens!.steps;
    assert.equal(shown.outputText, steps.map((s) => s.text).join(''), 'every token, in order, as text');
    assert.equal(shown.tokens, steps.length);
    // Fixed bands in nats: < 0.1, 0.1–0.5, 0.5–1, 1–2, ≥ 2.
    const band = (e: number) => String([0.1, 0.5, 1, 2, Infinity].findIndex((b) => e < b));
    assert.deepEqual(shown.bands, steps.map((s) => band(s.entropy)));
    assert.ok(new Set(shown.bands).size >= 2, 'the demo output has tokens in more than one band');
    assert.match(shown.legend, /Entropy .*nats.*< 0\.1.*0\.1–0\.5.*0\.5–1.*1–2.*≥ 2/);
    assert.match(shown.heading, /fork probe, B = 8/);
    const positions = [...new Set(fork.forks.map((f) => f.position))];
    assert.equal(shown.sites.length, positions.length, 'one mark per forked position');
    assert.deepEqual(shown.sites.map((s) => s.endsWith('✓')), positions.map((p) => fork.forks.some((f) => f.position === p && f.saves)));
    assert.equal(fork.earliest, 1, 'the fixture: the second fork is the earliest that saves');
    const earliest = fork.forks[1];
    assert.equal(shown.earliestToken, steps[earliest.position].text, 'the deployed token the saving fork replaces is outlined');
    assert.equal(shown.rows.length, fork.forks.length);
    assert.deepEqual(shown.earliestRows, [1]);
    assert.ok(shown.rows[1].includes('earliest saving fork'), shown.rows[1]);
    assert.ok(shown.rows[0].includes('✗') && !shown.rows[0].includes('✓'), `the first fork saves nothing: ${shown.rows[0]}`);
    assert.ok(shown.rows[1].includes('✓'), shown.rows[1]);
    assert.match(shown.line, new RegExp(`Earliest saving fork: token ${earliest.position}, “${earliest.deployed.text}” .*→ “${earliest.alternative.text}”`));
    assert.deepEqual(shown.pressed, [1], 'the saving fork\'s branch is shown first');
    assert.deepEqual(shown.alternative, [earliest.alternative.text, earliest.alternative.text]);
    const prefix = steps.slice(0, earliest.position).map((s) => s.text).join('');
    assert.ok(shown.detail.includes(prefix + earliest.alternative.text + earliest.greedy.continuation), 'prefix, alternative, greedy continuation');
    assert.equal(shown.injected, 0);
  });

  test('the foreclosure window: its tokens outlined in the fork section, with the line that says so', async () => {
    await select(saved.id);
    const inWindow = await evaluate<number[]>(page, `Array.from(document.querySelectorAll('.detail .fork-output .fork-token')).map((t, i) => (t.classList.contains('fork-in-window') ? i : -1)).filter((i) => i >= 0)`);
    assert.deepEqual(inWindow, [2, 3, 4]);
    assert.match(await evaluate<string>(page, `document.querySelector('.detail .fork-window-line').textContent`), /foreclosure window \(tokens 2 to 4\)/);
    await select(hostile.id);
    assert.equal(await evaluate(page, `document.querySelectorAll('.detail .fork-in-window').length + (document.querySelector('.detail .fork-window-line') ? 1 : 0)`), 0, 'no window: nothing outlined');
  });

  test('clicking a fork shows its branch\'s continuation', async () => {
    await select(saved.id);
    const fork = demo.get(SAVED)!.fork!;
    await page.locator('.detail .fork-row').nth(0).click();
    await waitFor(page, `document.querySelectorAll('.detail .fork-row')[0].getAttribute('aria-pressed') === 'true'`);
    const shown = await evaluate<Shown>(page, SHOWN);
    assert.deepEqual(shown.pressed, [0]);
    assert.ok(shown.detail.includes(fork.forks[0].greedy.continuation));
    assert.ok(shown.detail.includes(fork.forks[0].sample.continuation));
    assert.match(shown.detail, new RegExp(`Fork at token ${fork.forks[0].position} `));
  });

  test('hostile model text in tokens, alternatives and continuations stays text', async () => {
    await select(hostile.id);
    const shown = await evaluate<Shown>(page, SHOWN);
    assert.ok(shown.outputText.includes(XSS_IMG), 'the token shows its markup as text');
    assert.match(shown.line, /No fork reaches the gold answer/);
    assert.deepEqual(shown.earliestRows, []);
    assert.deepEqual(shown.pressed, [], 'no fork saves: none is opened up front');
    await page.locator('.detail .fork-row').nth(0).click();
    await waitFor(page, `document.querySelector('.detail .fork-detail') !== null`);
    const opened = await evaluate<Shown>(page, SHOWN);
    assert.deepEqual(opened.alternative, [XSS_SCRIPT, XSS_SCRIPT]);
    assert.ok(opened.detail.includes(`${XSS_SCRIPT}${XSS_IMG} then ${XSS_SCRIPT}`), opened.detail);
    assert.ok(opened.rows[0].includes(XSS_SCRIPT));
    assert.equal(opened.injected, 0, 'model text never becomes an element');
  });

  test('a realized question shows its token record without forks; a record without the probe has no section', async () => {
    await select(realized.id);
    const shown = await evaluate<Shown>(page, SHOWN);
    assert.match(shown.heading, /no forks were tried/);
    assert.equal(shown.rows.length, 0);
    assert.equal(shown.outputText, demo.get(REALIZED)!.deployedTokens!.steps.map((s) => s.text).join(''));
    await select(plain.id);
    assert.equal(await evaluate(page, `document.querySelector('.detail .fork') === null`), true);
  });

  test('no CSP violations or script errors', async () => {
    // The harness's own synthetic-run generator trips wasm-eval; the panel's bundle must trip nothing.
    const generator = (text: string) => text.includes('/synthetic.js') || text.includes('WebAssembly.Module()');
    const violations = await evaluate<{ source?: string }[]>(page, 'window.__harness.violations');
    assert.deepEqual(violations.filter((v) => !generator(String(v.source ?? ''))), [], 'no Content-Security-Policy violations from the panel');
    assert.deepEqual((await evaluate<string[]>(page, 'window.__harness.errors')).filter((e) => !generator(e)), [], 'no script errors');
    assert.deepEqual(opened.browser.problems.filter((e) => !generator(e)), [], 'no console errors');
  });
});
