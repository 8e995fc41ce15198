/**
 * What the VS Code suite cannot see from inside the extension host — the rendered webview DOM and
 * the window's pixels — the launcher looks at for it. The suite asks by logging one line
 * `[reach-audit-page] {"id","kind","args"}` (it reaches the launcher through the workbench's log
 * forwarding) and waits for `<workspace>/.reach-audit-page/<id>.json`, which this file writes.
 *
 * Kinds:
 *   panelDom    {id, text}  → the audit panel's DOM facts for the question `id` (see PanelDom)
 *   panelClick  {text}      → clicks the panel's button or tab whose text is `text` (a tab the host
 *                             cannot switch, for the screenshots of the charts)
 *   screenshot  {name}      → the window and the audit panel saved as PNG files under the
 *                             screenshot folder; answers with their paths
 *   panelEval   {fn, arg}   → page-side function source `fn` applied to `arg` in the panel's frame,
 *                             retried until it answers something other than null/undefined (20 s)
 *   panelDrag   {selector, dx} → drags the panel element `selector` by `dx` px (a column edge)
 *   workbenchEval {fn, arg} → as panelEval, in the workbench page itself (views, editor gutter)
 *   workbenchClick {selector, text} → clicks the workbench element `selector` whose text is `text`
 *   viewEval    {fn, arg, selector} → as panelEval, in the webview frame whose document has an
 *                             element matching `selector` (a side view such as the Audit view)
 *   viewport    {width, height} → resizes the browser window's page (the layout at that size)
 *   quickInputType {file}  → types the text of `file` into the open quick input (an input box a
 *                             command shows) and presses Enter; answers whether it was a password
 *                             box. The text travels in a file, so a secret is in no log line.
 * panelClick, panelEval and screenshot take an optional `frame` selector: the webview whose page has
 * it (default `.qt-row`, the audit panel; the Tables page answers to `.rt-tables`).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ElementHandle, Frame, Page } from 'playwright-core';

export const PAGE_PROBE_PREFIX = '[reach-audit-page] ';
export const PAGE_PROBE_FOLDER = '.reach-audit-page';

export interface PageProbeRequest {
  id: string;
  kind: 'panelDom' | 'panelClick' | 'screenshot' | 'panelEval' | 'panelDrag' | 'workbenchEval' | 'workbenchClick' | 'viewEval' | 'quickInputType' | 'viewport';
  args: Record<string, unknown>;
}

/** DOM facts of the audit panel, as the suite asserts them. */
export interface PanelDom {
  /** Elements that would exist only if dataset text had been parsed as HTML. */
  imgElements: number;
  /** Every script element: ours (src + nonce) and VS Code's own API shim (inline). */
  scripts: { src: string | null; nonce: boolean; inline: string }[];
  /** `on*` attributes anywhere in the document (none are ever written by the panel). */
  handlerAttributes: string[];
  /** Set by the test's payload if it ever ran. */
  pwned: boolean;
  /** Text of the table rows whose id cell is the asked id. */
  rowTexts: string[];
  /** The detail pane's question text and title. */
  detailQuestion: string | null;
  detailTitle: string | null;
  csp: string | null;
}

// The functions below run inside the webview's page, so they are page-side JavaScript source
// (this program is compiled without the DOM library, which must not leak into Node code).
const HAS_SELECTOR = '(selector) => document.querySelector(selector) !== null';
const SHOWS_QUESTION = `({ id, text }) =>
  (document.querySelector('.question-text')?.textContent ?? '') === text && document.body.textContent.includes(id)`;
const PANEL_FACTS = `(id) => {
  const handlers = Array.from(document.querySelectorAll('*')).flatMap((el) =>
    Array.from(el.attributes).filter((a) => a.name.toLowerCase().startsWith('on')).map((a) => el.tagName.toLowerCase() + '[' + a.name + ']'));
  const rows = Array.from(document.querySelectorAll('.qt-row')).filter((row) => row.querySelector('.col-id')?.textContent === id);
  return {
    imgElements: document.querySelectorAll('img').length,
    scripts: Array.from(document.querySelectorAll('script')).map((el) => ({
      src: el.getAttribute('src'),
      nonce: el.nonce !== '' || el.hasAttribute('nonce'),
      inline: (el.textContent ?? '').trim().slice(0, 200),
    })),
    handlerAttributes: handlers,
    pwned: document.documentElement.hasAttribute('data-pwned'),
    rowTexts: rows.map((r) => r.textContent ?? ''),
    detailQuestion: document.querySelector('.question-text')?.textContent ?? null,
    detailTitle: document.querySelector('.detail-title h2')?.textContent ?? null,
    csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? null,
  };
}`;

/** Evaluates page-side source `fn` applied to `arg` in `frame`. */
async function call<T>(frame: Frame, fn: string, arg: unknown): Promise<T> {
  return (await frame.evaluate(`(${fn})(${JSON.stringify(arg)})`)) as T;
}

/** The content frame of a webview whose document matches `selector` (the panel: its question table). */
async function webviewFrame(page: Page, selector: string): Promise<Frame | undefined> {
  for (const frame of page.frames()) {
    try {
      if (await call<boolean>(frame, HAS_SELECTOR, selector)) return frame;
    } catch {
      // a frame that navigated away or is not scriptable from here
    }
  }
  return undefined;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function panelDom(page: Page, args: Record<string, unknown>): Promise<PanelDom> {
  const id = String(args.id);
  const text = String(args.text ?? '');
  // The row is there and the detail pane shows the question once the panel has rendered it.
  const frame = await waitFor(
    `the audit panel showing question ${id}`,
    async () => {
      const f = await webviewFrame(page, '.qt-row');
      if (!f) return undefined;
      const ready = await call<boolean>(f, SHOWS_QUESTION, { id, text });
      return ready ? f : undefined;
    },
    20_000,
  );
  return call<PanelDom>(frame, PANEL_FACTS, id);
}

/** Which webview a probe is for: the page that has `args.frame` (default: the audit panel's table). */
const frameSelector = (args: Record<string, unknown>): string => (typeof args.frame === 'string' ? args.frame : '.qt-row');

async function panelClick(page: Page, args: Record<string, unknown>): Promise<{ clicked: string }> {
  const text = String(args.text);
  const frame = await waitFor('the webview', () => webviewFrame(page, frameSelector(args)), 20_000);
  const target = frame.locator('button, [role="tab"], vscode-panel-tab, vscode-button').filter({ hasText: text }).first();
  await target.click({ timeout: 10_000 });
  return { clicked: text };
}

/** Page-side `fn(arg)` in `frame`, retried until it answers a value (not null/undefined). */
async function evalUntil(what: string, frame: () => Promise<Frame | undefined>, args: Record<string, unknown>): Promise<unknown> {
  const fn = String(args.fn);
  return waitFor(
    what,
    async () => {
      const f = await frame();
      if (!f) return undefined;
      try {
        const value = await call<unknown>(f, fn, args.arg ?? null);
        return value === null || value === undefined ? undefined : value;
      } catch {
        return undefined;
      }
    },
    Number(args.timeoutMs ?? 20_000),
  );
}

async function panelDrag(page: Page, args: Record<string, unknown>): Promise<{ dragged: number }> {
  const frame = await waitFor('the audit panel', () => webviewFrame(page, '.qt-row'), 20_000);
  const box = await frame.locator(String(args.selector)).first().boundingBox();
  if (!box) throw new Error(`nothing to drag at ${String(args.selector)}`);
  // Coordinates are the page's: the frame's box is already offset by playwright.
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  const dx = Number(args.dx);
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx / 2, y, { steps: 4 });
  await page.mouse.move(x + dx, y, { steps: 4 });
  await page.mouse.up();
  return { dragged: dx };
}

async function workbenchClick(page: Page, args: Record<string, unknown>): Promise<{ clicked: string; matches: number; where: string }> {
  const matching = page.locator(String(args.selector)).filter({ hasText: String(args.text) });
  const target = matching.first();
  // What was clicked, for a test that fails after the click: how many elements matched, and the
  // clicked one's label with the labels of the lists and views around it.
  // (This file compiles without the DOM's types: the element is typed by what is read of it.)
  interface Node { id: string; getAttribute(name: string): string | null; parentElement: Node | null }
  const where = await target.evaluate((el: Node) => {
    const labels: string[] = [];
    for (let p: Node | null = el; p; p = p.parentElement) {
      const label = p.getAttribute('aria-label') ?? (p.id ? `#${p.id}` : '');
      if (label) labels.push(label.slice(0, 80));
    }
    return labels.slice(0, 6).join(' < ');
  }, undefined, { timeout: 20_000 });
  const matches = await matching.count();
  await target.click({ timeout: 20_000 });
  return { clicked: String(args.text), matches, where };
}

async function setViewport(page: Page, args: Record<string, unknown>): Promise<{ width: number; height: number }> {
  const size = { width: Number(args.width), height: Number(args.height) };
  await page.setViewportSize(size);
  return size;
}

async function quickInputType(page: Page, args: Record<string, unknown>): Promise<{ typed: number; password: boolean }> {
  const text = readFileSync(String(args.file), 'utf8');
  const input = page.locator('.quick-input-widget .quick-input-box input').first();
  await input.waitFor({ state: 'visible', timeout: 20_000 });
  const password = (await input.getAttribute('type')) === 'password';
  await input.fill(text);
  await input.press('Enter');
  return { typed: text.length, password };
}

/** The outer `iframe.webview` element that holds the panel's content frame. */
async function panelElement(page: Page, selector: string): Promise<ElementHandle | null> {
  const frame = await webviewFrame(page, selector);
  let outer = frame?.parentFrame();
  // content frame (#active-frame) → the webview's own iframe → the workbench page
  while (outer && outer.parentFrame() && outer.parentFrame() !== page.mainFrame()) outer = outer.parentFrame();
  return outer ? outer.frameElement() : null;
}

async function screenshot(page: Page, args: Record<string, unknown>, folder: string): Promise<{ files: string[] }> {
  const name = String(args.name).replace(/[^A-Za-z0-9_-]/g, '_');
  mkdirSync(folder, { recursive: true });
  // Let the theme change and the charts' re-render settle before taking the picture.
  await new Promise((r) => setTimeout(r, 1500));
  const files = [path.join(folder, `${name}-window.png`)];
  await page.screenshot({ path: files[0] });
  const element = await panelElement(page, frameSelector(args));
  if (element) {
    files.push(path.join(folder, `${name}-panel.png`));
    await element.screenshot({ path: files[1] });
  }
  return { files };
}

/** Answers page-probe requests found in the suite's log lines. */
export class PageProbes {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly page: Page,
    private readonly workspace: string,
    private readonly screenshotFolder: string,
  ) {}

  /** True when `text` was a request (it is then answered in the background). */
  handle(text: string): boolean {
    if (!text.startsWith(PAGE_PROBE_PREFIX)) return false;
    let request: PageProbeRequest;
    try {
      request = JSON.parse(text.slice(PAGE_PROBE_PREFIX.length)) as PageProbeRequest;
    } catch {
      return false;
    }
    this.queue = this.queue.then(() => this.answer(request));
    return true;
  }

  private async answer(request: PageProbeRequest): Promise<void> {
    let reply: unknown;
    try {
      const result =
        request.kind === 'panelDom' ? await panelDom(this.page, request.args)
        : request.kind === 'panelClick' ? await panelClick(this.page, request.args)
        : request.kind === 'screenshot' ? await screenshot(this.page, request.args, this.screenshotFolder)
        : request.kind === 'panelEval' ? await evalUntil('the panel page-side check', () => webviewFrame(this.page, frameSelector(request.args)), request.args)
        : request.kind === 'panelDrag' ? await panelDrag(this.page, request.args)
        : request.kind === 'workbenchEval' ? await evalUntil('the workbench page-side check', async () => this.page.mainFrame(), request.args)
        : request.kind === 'workbenchClick' ? await workbenchClick(this.page, request.args)
        : request.kind === 'quickInputType' ? await quickInputType(this.page, request.args)
        : request.kind === 'viewport' ? await setViewport(this.page, request.args)
        : request.kind === 'viewEval' ? await evalUntil(`the webview with ${String(request.args.selector)}`, () => webviewFrame(this.page, String(request.args.selector)), request.args)
        : undefined;
      reply = result === undefined ? { error: `unknown page probe '${String(request.kind)}'` } : { result };
    } catch (err) {
      reply = { error: err instanceof Error ? err.message : String(err) };
    }
    const folder = path.join(this.workspace, PAGE_PROBE_FOLDER);
    mkdirSync(folder, { recursive: true });
    const file = path.join(folder, `${request.id.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(reply));
    renameSync(`${file}.tmp`, file);
  }
}
