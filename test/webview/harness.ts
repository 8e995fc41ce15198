/**
 * The audit panel's test harness: bundles webview/src/main.ts the way the extension ships it,
 * serves it from 127.0.0.1 inside a page with the extension's Content-Security-Policy and a fake
 * acquireVsCodeApi, and drives it in Debian's Chromium through playwright-core. Node side only;
 * what runs in the page lives in harness/*.js and in the bundles.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { builtinModules } from 'node:module';
import { build, type Plugin } from 'esbuild';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { contentSecurityPolicy } from '../../src/extension/panel/panelHtml';

/** Repository root (this file runs from out/test/webview/). */
export const ROOT = resolve(__dirname, '..', '..', '..');
const HARNESS_DIR = join(ROOT, 'test', 'webview', 'harness');

// The esbuild plugin esbuild.js also applies to the webview bundle (plain CommonJS beside it).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { cspSafeToolkit } = require(join(ROOT, 'webview', 'cspSafeToolkit.js')) as { cspSafeToolkit: Plugin };

export type ThemeName = 'dark' | 'light' | 'high-contrast';

/** The --vscode-* variables VS Code sets on a webview for Dark Modern / Light Modern / Dark High Contrast (the ones the panel and the toolkit read). */
const THEMES: Record<ThemeName, { bodyClass: string; vars: Record<string, string> }> = {
  dark: {
    bodyClass: 'vscode-dark',
    vars: {
      'font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
      'font-size': '13px',
      'font-weight': 'normal',
      'editor-font-family': '"Droid Sans Mono", "DejaVu Sans Mono", monospace',
      'editor-font-size': '12px',
      foreground: '#cccccc',
      descriptionForeground: '#9d9d9d',
      'editor-background': '#1f1f1f',
      'editor-foreground': '#cccccc',
      'panel-background': '#181818',
      'panel-border': '#2b2b2b',
      'editorWidget-background': '#202020',
      'editorWidget-border': '#313131',
      'editorGroup-border': '#ffffff17',
      focusBorder: '#0078d4',
      'list-hoverBackground': '#2a2d2e',
      'list-activeSelectionBackground': '#04395e',
      'list-activeSelectionForeground': '#ffffff',
      'list-inactiveSelectionBackground': '#37373d',
      'list-focusOutline': '#0078d4',
      'charts-blue': '#3794ff',
      'charts-green': '#89d185',
      'charts-red': '#f14c4c',
      'charts-orange': '#d18616',
      'charts-purple': '#b180d7',
      'charts-yellow': '#cca700',
      'charts-foreground': '#cccccc',
      'charts-lines': '#cccccc80',
      'testing-iconPassed': '#73c991',
      'testing-iconFailed': '#f14c4c',
      'textCodeBlock-background': '#2b2b2b',
      'editorWarning-foreground': '#cca700',
      'button-background': '#0078d4',
      'button-foreground': '#ffffff',
      'button-hoverBackground': '#026ec1',
      'button-border': '#ffffff12',
      'button-secondaryBackground': '#313131',
      'button-secondaryForeground': '#cccccc',
      'button-secondaryHoverBackground': '#3c3c3c',
      'input-background': '#313131',
      'input-foreground': '#cccccc',
      'input-border': '#3c3c3c',
      'input-placeholderForeground': '#989898',
      'dropdown-background': '#313131',
      'dropdown-foreground': '#cccccc',
      'dropdown-border': '#3c3c3c',
      'dropdown-listBackground': '#1f1f1f',
      'checkbox-background': '#313131',
      'checkbox-border': '#3c3c3c',
      'checkbox-foreground': '#cccccc',
      'badge-background': '#616161',
      'badge-foreground': '#f8f8f8',
      'panelTitle-activeBorder': '#0078d4',
      'panelTitle-activeForeground': '#cccccc',
      'panelTitle-inactiveForeground': '#9d9d9d',
      'progressBar-background': '#0078d4',
      'scrollbarSlider-background': '#79797966',
      'scrollbarSlider-hoverBackground': '#646464b3',
      'scrollbarSlider-activeBackground': '#bfbfbf66',
      'textLink-foreground': '#4daafc',
      'textLink-activeForeground': '#4daafc',
      'settings-dropdownListBorder': '#454545',
    },
  },
  light: {
    bodyClass: 'vscode-light',
    vars: {
      'font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
      'font-size': '13px',
      'font-weight': 'normal',
      'editor-font-family': '"Droid Sans Mono", "DejaVu Sans Mono", monospace',
      'editor-font-size': '12px',
      foreground: '#3b3b3b',
      descriptionForeground: '#717171',
      'editor-background': '#ffffff',
      'editor-foreground': '#3b3b3b',
      'panel-background': '#f8f8f8',
      'panel-border': '#e5e5e5',
      'editorWidget-background': '#f8f8f8',
      'editorWidget-border': '#e5e5e5',
      'editorGroup-border': '#e5e5e5',
      focusBorder: '#005fb8',
      'list-hoverBackground': '#f2f2f2',
      'list-activeSelectionBackground': '#e8e8e8',
      'list-activeSelectionForeground': '#000000',
      'list-inactiveSelectionBackground': '#e4e6f1',
      'list-focusOutline': '#005fb8',
      'charts-blue': '#1a85ff',
      'charts-green': '#388a34',
      'charts-red': '#e51400',
      'charts-orange': '#d18616',
      'charts-purple': '#652d90',
      'charts-yellow': '#bf8803',
      'charts-foreground': '#616161',
      'charts-lines': '#61616180',
      'testing-iconPassed': '#388a34',
      'testing-iconFailed': '#e51400',
      'textCodeBlock-background': '#f8f8f8',
      'editorWarning-foreground': '#bf8803',
      'button-background': '#005fb8',
      'button-foreground': '#ffffff',
      'button-hoverBackground': '#0258a8',
      'button-border': '#0000001a',
      'button-secondaryBackground': '#e5e5e5',
      'button-secondaryForeground': '#3b3b3b',
      'button-secondaryHoverBackground': '#cccccc',
      'input-background': '#ffffff',
      'input-foreground': '#3b3b3b',
      'input-border': '#cecece',
      'input-placeholderForeground': '#767676',
      'dropdown-background': '#ffffff',
      'dropdown-foreground': '#3b3b3b',
      'dropdown-border': '#cecece',
      'dropdown-listBackground': '#ffffff',
      'checkbox-background': '#f8f8f8',
      'checkbox-border': '#cecece',
      'checkbox-foreground': '#3b3b3b',
      'badge-background': '#cccccc',
      'badge-foreground': '#3b3b3b',
      'panelTitle-activeBorder': '#005fb8',
      'panelTitle-activeForeground': '#3b3b3b',
      'panelTitle-inactiveForeground': '#717171',
      'progressBar-background': '#005fb8',
      'scrollbarSlider-background': '#64646466',
      'scrollbarSlider-hoverBackground': '#646464b3',
      'scrollbarSlider-activeBackground': '#00000099',
      'textLink-foreground': '#005fb8',
      'textLink-activeForeground': '#005fb8',
      'settings-dropdownListBorder': '#cecece',
    },
  },
  'high-contrast': {
    bodyClass: 'vscode-high-contrast',
    vars: {
      'font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
      'font-size': '13px',
      'font-weight': 'normal',
      'editor-font-family': '"Droid Sans Mono", "DejaVu Sans Mono", monospace',
      'editor-font-size': '12px',
      foreground: '#ffffff',
      descriptionForeground: '#ffffff',
      'editor-background': '#000000',
      'panel-border': '#6fc3df',
      contrastBorder: '#6fc3df',
      contrastActiveBorder: '#f38518',
      focusBorder: '#f38518',
      'list-hoverBackground': '#000000',
      'list-activeSelectionBackground': '#000000',
      'list-focusOutline': '#f38518',
      'charts-blue': '#3794ff',
      'charts-green': '#89d185',
      'charts-red': '#f14c4c',
      'charts-orange': '#d18616',
      'charts-purple': '#b180d7',
      'charts-yellow': '#cca700',
      'testing-iconPassed': '#73c991',
      'testing-iconFailed': '#f14c4c',
      'button-background': '#000000',
      'button-foreground': '#ffffff',
      'button-border': '#6fc3df',
      'input-background': '#000000',
      'input-foreground': '#ffffff',
      'input-border': '#6fc3df',
      'dropdown-background': '#000000',
      'dropdown-foreground': '#ffffff',
      'dropdown-border': '#6fc3df',
      'checkbox-background': '#000000',
      'checkbox-border': '#6fc3df',
      'badge-background': '#000000',
      'badge-foreground': '#ffffff',
      'panelTitle-activeBorder': '#6fc3df',
      'panelTitle-activeForeground': '#ffffff',
      'panelTitle-inactiveForeground': '#ffffff',
    },
  },
};

function themeCss(theme: ThemeName): string {
  const lines = Object.entries(THEMES[theme].vars).map(([name, value]) => `  --vscode-${name}: ${value};`);
  return `:root {\n${lines.join('\n')}\n}\n`;
}

export interface Bundles {
  dir: string;
  /** Bytes of the panel's script and stylesheet. */
  scriptBytes: number;
  styleBytes: number;
}

/** The two pages the extension ships: the audit panel and the Tables page. */
export type PageName = 'main' | 'tables';
/**
 * The synthetic-run bundle runs the audit's summarize() in the browser. It reaches the audit's
 * rooms through their doors (index.ts), which also lead to the engine and to modules that read
 * files or lock folders; summarize calls none of them. So the engine's door, the Node builtins
 * (node:crypto aside, aliased above) and the node-only packages are stand-ins here
 * (harness/nodeOnlyForBrowser.js).
 */
// hyparquet-compressors instantiates WebAssembly when loaded, which the page's CSP refuses; the
// parquet reader (and the log imports' unzip) are never called by summarize.
const NODE_ONLY = new Set([...builtinModules, 'onnxruntime-node', 'proper-lockfile', 'hyparquet', 'hyparquet-compressors', 'fflate']);
const nodeOnlyForBrowser: Plugin = {
  name: 'node-only-for-browser',
  setup(b) {
    const src = join(ROOT, 'src');
    const standIn = { path: join(HARNESS_DIR, 'nodeOnlyForBrowser.js') };
    b.onResolve({ filter: /(^|\/)engine(\/index)?$/ }, (args) => (args.importer.startsWith(src) && !args.importer.startsWith(join(src, 'engine')) ? standIn : undefined));
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path !== 'node:crypto' && NODE_ONLY.has(args.path.replace(/^node:/, '')) ? standIn : undefined));
  },
};

const PAGE_ENTRIES: Record<PageName, string> = { main: join(ROOT, 'webview', 'src', 'main.ts'), tables: join(ROOT, 'webview', 'src', 'tables', 'main.ts') };

/** Bundles the pages (as the extension ships them: iife for the browser, CSS beside each) and the synthetic-run generator. */
export async function buildBundles(pages: readonly PageName[] = ['main']): Promise<Bundles> {
  const dir = await mkdtemp(join(tmpdir(), 'reach-audit-webview-'));
  for (const name of pages) {
    await build({
      entryPoints: [PAGE_ENTRIES[name]],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'chrome120',
      minify: process.env.REACH_AUDIT_WEBVIEW_DEBUG !== '1', // set to 1 for readable profiles
      sourcemap: true,
      outfile: join(dir, `${name}.js`),
      logLevel: 'error',
      plugins: [cspSafeToolkit],
    });
  }
  await build({
    entryPoints: [join(ROOT, 'test', 'webview', 'syntheticRun.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    globalName: 'ReachAuditSynthetic',
    outfile: join(dir, 'synthetic.js'),
    logLevel: 'error',
    alias: { 'node:crypto': join(HARNESS_DIR, 'keyHashForBrowser.js') },
    plugins: [nodeOnlyForBrowser],
  });
  const first = pages[0] ?? 'main';
  const [script, style] = await Promise.all([readFile(join(dir, `${first}.js`)), readFile(join(dir, `${first}.css`))]);
  return { dir, scriptBytes: script.length, styleBytes: style.length };
}

export interface Harness {
  origin: string;
  /** The page URL for a theme (the audit panel unless `page` says the Tables page). */
  url(theme?: ThemeName, page?: PageName): string;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json', '.html': 'text/html' };

/**
 * Serves the harness page on 127.0.0.1 with a fresh nonce per load. The page's CSP is the one the
 * extension uses, with the server's origin standing in for webview.cspSource.
 */
export async function startHarness(bundles: Bundles): Promise<Harness> {
  const files: Record<string, string> = {
    '/main.js': join(bundles.dir, 'main.js'),
    '/main.js.map': join(bundles.dir, 'main.js.map'),
    '/main.css': join(bundles.dir, 'main.css'),
    '/tables.js': join(bundles.dir, 'tables.js'),
    '/tables.js.map': join(bundles.dir, 'tables.js.map'),
    '/tables.css': join(bundles.dir, 'tables.css'),
    '/synthetic.js': join(bundles.dir, 'synthetic.js'),
    '/fakeVscodeApi.js': join(HARNESS_DIR, 'fakeVscodeApi.js'),
    '/pageProbes.js': join(HARNESS_DIR, 'pageProbes.js'),
  };
  let origin = '';
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', origin);
      if (url.pathname === '/' || url.pathname === '/index.html') {
        const theme = (url.searchParams.get('theme') ?? 'dark') as ThemeName;
        const page: PageName = url.searchParams.get('page') === 'tables' ? 'tables' : 'main';
        const html = harnessHtml(origin, THEMES[theme] ? theme : 'dark', randomBytes(16).toString('base64'), page);
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        response.end(html);
        return;
      }
      const themeMatch = /^\/theme-(dark|light|high-contrast)\.css$/.exec(url.pathname);
      if (themeMatch) {
        response.writeHead(200, { 'content-type': 'text/css' });
        response.end(themeCss(themeMatch[1] as ThemeName));
        return;
      }
      const file = files[url.pathname];
      if (url.pathname === '/favicon.ico') {
        response.writeHead(204);
        response.end();
        return;
      }
      if (!file) {
        response.writeHead(404);
        response.end();
        return;
      }
      const body = await readFile(file);
      response.writeHead(200, { 'content-type': TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      response.end(body);
    })().catch((error: unknown) => {
      response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (theme: ThemeName = 'dark', page: PageName = 'main') => `${origin}/?theme=${theme}${page === 'main' ? '' : `&page=${page}`}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/** The page as the extension builds it (plus the harness scripts before the panel's). */
function harnessHtml(cspSource: string, theme: ThemeName, nonce: string, page: PageName): string {
  const csp = contentSecurityPolicy(cspSource, nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" id="theme" href="${cspSource}/theme-${theme}.css">
<link rel="stylesheet" href="${cspSource}/${page}.css">
<title>Reach Audit</title>
</head>
<body class="${THEMES[theme].bodyClass}" data-vscode-theme-kind="${THEMES[theme].bodyClass}">
<div id="app"></div>
<script nonce="${nonce}" src="${cspSource}/fakeVscodeApi.js"></script>
<script nonce="${nonce}" src="${cspSource}/synthetic.js"></script>
<script nonce="${nonce}" src="${cspSource}/pageProbes.js"></script>
<script nonce="${nonce}" src="${cspSource}/${page}.js"></script>
</body>
</html>
`;
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Page console errors and failed requests seen so far. */
  problems: string[];
  close(): Promise<void>;
}

/** Debian's Chromium, headless, with a fresh profile; never a downloaded browser. */
export async function launchBrowser(viewport = { width: 1400, height: 900 }): Promise<Browser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'reach-audit-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    viewport,
    deviceScaleFactor: 1,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
  page.on('dialog', (dialog) => {
    problems.push(`dialog opened: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return {
    context,
    page,
    problems,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until `expression` is truthy in the page. Not page.waitForFunction: it re-runs a string
 * expression with eval() on each animation frame, which the panel's CSP (no 'unsafe-eval') blocks
 * whenever the first check does not already pass; page.evaluate goes through DevTools, which the
 * CSP lets through.
 */
export async function waitFor(page: Page, expression: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 16));
  }
}

/** Opens the harness and waits until the panel (or the Tables page) has started (it posts `ready`). */
export async function openPanel(page: Page, harness: Harness, theme: ThemeName = 'dark', which: PageName = 'main'): Promise<void> {
  await page.goto(harness.url(theme, which));
  await waitFor(page, 'window.__harness && window.__harness.posted.some(m => m.type === "ready")');
}

/** Switches the theme the way VS Code does: new variables, then the body class. */
export async function setTheme(page: Page, harness: Harness, theme: ThemeName): Promise<void> {
  const href = `${harness.origin}/theme-${theme}.css`;
  const bodyClass = THEMES[theme].bodyClass;
  await page.evaluate(`new Promise((resolve) => {
    const link = document.getElementById('theme');
    link.addEventListener('load', () => {
      document.body.className = ${JSON.stringify(bodyClass)};
      document.body.dataset.vscodeThemeKind = ${JSON.stringify(bodyClass)};
      requestAnimationFrame(() => requestAnimationFrame(resolve));
    }, { once: true });
    link.href = ${JSON.stringify(href)};
  })`);
}

/** Messages the panel posted to the extension so far. */
export async function postedMessages(page: Page): Promise<Array<Record<string, unknown>>> {
  return (await page.evaluate('window.__harness.posted')) as Array<Record<string, unknown>>;
}

export { median } from '../../src/common';

/** The panel's page served, opened in Chromium and started; `close` takes all of it down. */
export interface OpenedPanel {
  page: Page;
  browser: Browser;
  close(): Promise<void>;
}

export async function openedPanel(): Promise<OpenedPanel> {
  const bundles = await buildBundles();
  const harness = await startHarness(bundles);
  const browser = await launchBrowser();
  await openPanel(browser.page, harness);
  return {
    page: browser.page,
    browser,
    close: async () => {
      await browser.close();
      await harness.close();
      await rm(bundles.dir, { recursive: true, force: true });
    },
  };
}
