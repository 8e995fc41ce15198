/**
 * Benchmark of the audit panel in Chromium at 10,000 questions (the panel's targets: first rows
 * within 1 s, filtering within 100 ms). Medians of several runs, measured in the page with
 * performance.now(), with baselines measured in the same run: the run sent as one message vs in
 * batches, and the panel's indexed query + redraw vs a plain scan of the records (no index, no drawing).
 * Run: npx tsc -p . && node out/test/webview/bench.js [--runs N]
 */
import { loadavg } from 'node:os';
import { rm } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { buildBundles, launchBrowser, median, openPanel, startHarness, type Harness } from './harness';

const N = 10000;
const RUN = { n: N, budget: 8, seed: 7, runId: 'bench', label: 'bench 10k' };
const runsArg = process.argv.indexOf('--runs');
const REPEATS = runsArg > 0 ? Math.max(1, Number(process.argv[runsArg + 1])) : 5;

interface PostTiming {
  rowsMs: number;
  frameMs: number;
  allMs: number;
}

async function evaluate<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

async function freshLoad(page: Page, harness: Harness, chunked: boolean): Promise<PostTiming> {
  await evaluate(page, 'window.__harness.clearState()');
  await openPanel(page, harness);
  await evaluate(page, `window.__probes.makeRun(${JSON.stringify(RUN)})`);
  return evaluate<PostTiming>(page, `window.__probes.postRun(${chunked ? '{ chunk: 500, batch: 2000 }' : ''})`);
}

interface TraceEvent {
  name: string;
  ph: string;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/** Renderer main-thread CPU time (ms) of the longest task while `expression` runs in the page. */
async function rendererThreadMs(page: Page, expression: string): Promise<number> {
  const session = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  session.on('Tracing.dataCollected', (data) => {
    events.push(...(data.value as unknown as TraceEvent[]));
  });
  const complete = new Promise<void>((done) => session.once('Tracing.tracingComplete', () => done()));
  await session.send('Tracing.start', { categories: 'toplevel,disabled-by-default-devtools.timeline', transferMode: 'ReportEvents' });
  await page.evaluate(expression);
  await session.send('Tracing.end');
  await complete;
  await session.detach();
  const mainThread = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain')?.tid;
  const tasks = events.filter((e) => e.tid === mainThread && e.ph === 'X' && e.tdur !== undefined && /RunTask/.test(e.name));
  // A trace that missed the task (it happens under heavy load) gives no measurement, not zero.
  const longest = Math.max(0, ...tasks.map((e) => e.tdur!)) / 1000;
  return longest > 0 ? longest : Number.NaN;
}

function row(name: string, values: number[], unit = 'ms'): string {
  const sorted = values.slice().sort((a, b) => a - b);
  return `${name.padEnd(46)} median ${median(values).toFixed(1).padStart(8)} ${unit}   min ${sorted[0].toFixed(1).padStart(8)}   max ${sorted[sorted.length - 1].toFixed(1).padStart(8)}   (n=${values.length})`;
}

async function main(): Promise<void> {
  const bundles = await buildBundles();
  const harness = await startHarness(bundles);
  const browser = await launchBrowser();
  const { page } = browser;
  const lines: string[] = [];
  try {
    const load = loadavg();
    lines.push(`Chromium ${browser.context.browser()?.version() ?? '(persistent context)'}, ${N.toLocaleString('en-US')} questions, budget ${RUN.budget} × 3 probes, load average ${load.map((l) => l.toFixed(1)).join(' ')}`);
    lines.push(`bundle: main.js ${(bundles.scriptBytes / 1024).toFixed(0)} KiB, main.css ${(bundles.styleBytes / 1024).toFixed(0)} KiB`);
    const size = await (async () => {
      await openPanel(page, harness);
      return evaluate<{ bytes: number }>(page, `window.__probes.makeRun(${JSON.stringify(RUN)})`);
    })();
    lines.push(`run payload (JSON): ${(size.bytes / 1e6).toFixed(1)} MB`);

    // First rows: the run in batches (first message 500 records) vs in one message (baseline).
    const chunked: PostTiming[] = [];
    for (let i = 0; i < REPEATS; i++) chunked.push(await freshLoad(page, harness, true));
    const whole: PostTiming[] = [];
    for (let i = 0; i < Math.max(1, Math.ceil(REPEATS / 2)); i++) whole.push(await freshLoad(page, harness, false));
    lines.push(row('first rows painted, batched (500 + 2,000s)', chunked.map((t) => t.frameMs)));
    lines.push(row('all 10,000 rows in the table, batched', chunked.map((t) => t.allMs)));
    lines.push(row('first rows painted, one message (baseline)', whole.map((t) => t.frameMs)));
    lines.push(`  ratio one-message / batched first rows: ${(median(whole.map((t) => t.frameMs)) / median(chunked.map((t) => t.frameMs))).toFixed(1)}×`);

    // Filtering and search on the loaded 10,000 rows (query + redraw + style/layout).
    await page.waitForTimeout(1000); // let the deferred statistics finish
    const measures: Record<string, number[]> = {};
    const add = (name: string, ms: number) => (measures[name] ??= []).push(ms);
    const naive: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      for (const filter of ['unreached', 'failureSet', 'repaired', 'realized', 'all']) add(`filter: ${filter}`, (await evaluate<{ ms: number }>(page, `window.__probes.timeFilter('${filter}')`)).ms);
      for (const text of ['apples', 'natalia apples', 'q-0424', 'onerror', '']) add(`search: '${text}'`, (await evaluate<{ ms: number }>(page, `window.__probes.timeSearch('${text}')`)).ms);
      add('sort: gold (toggle)', (await evaluate<{ ms: number }>(page, `window.__probes.timeSort('gold')`)).ms);
      add('sort: state (toggle)', (await evaluate<{ ms: number }>(page, `window.__probes.timeSort('states')`)).ms);
      add('sort: id', (await evaluate<{ ms: number }>(page, `window.__probes.timeSort('id')`)).ms);
      add('scroll to the middle and draw', (await evaluate<{ ms: number }>(page, `window.__probes.timeScroll(${(N / 2) * 26})`)).ms);
      add('scroll to the top and draw', (await evaluate<{ ms: number }>(page, `window.__probes.timeScroll(0)`)).ms);
      naive.push(await evaluate<number>(page, `window.__probes.naiveSearch('apples')`));
    }
    for (const [name, values] of Object.entries(measures)) lines.push(row(name, values));
    const allQueries = Object.entries(measures).filter(([k]) => k.startsWith('filter') || k.startsWith('search')).flatMap(([, v]) => v);
    lines.push(row('all filter/search answers together', allQueries));
    lines.push(row("baseline: plain scan of records for 'apples'", naive));
    lines.push(`  ratio panel search (query + redraw) / plain scan (no redraw): ${(median(measures["search: 'apples'"]) / median(naive)).toFixed(2)}×`);

    // CPU time, which the machine's load does not inflate: the renderer main thread's thread time
    // (trace `tdur`) for one page task that runs the filters and searches back to back.
    const operations = ['unreached', 'all', 'failureSet', 'all'].map((f) => `window.__probes.timeFilter('${f}')`).concat(['apples', '', 'natalia apples', ''].map((t) => `window.__probes.timeSearch('${t}')`));
    const cpu: number[] = [];
    for (let i = 0; i < REPEATS; i++) cpu.push((await rendererThreadMs(page, `(() => { ${operations.join(';')}; })()`)) / operations.length);
    const measured = cpu.filter((v) => Number.isFinite(v));
    if (measured.length > 0) lines.push(row('CPU (renderer thread time) per filter/search', measured));

    const violations = await evaluate<unknown[]>(page, 'window.__harness.violations');
    if (violations.length > 0 || browser.problems.length > 0) throw new Error(`page problems: ${JSON.stringify(violations)} ${browser.problems.join('; ')}`);
    console.log(lines.join('\n'));
  } finally {
    await browser.close();
    await harness.close();
    await rm(bundles.dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
