/**
 * The HTML page that hosts a webview bundle: a strict Content-Security-Policy with a fresh nonce,
 * nothing remote, scripts and styles only from the extension's own folder. Pure (no vscode), so
 * the exact page is checked in tests.
 */
import { randomBytes } from 'node:crypto';
import { escapeHtml } from '../../common';

/** 128 random bits, base64: unguessable per page load. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * Directives every Reach Audit page adds after its sources: no form submits anywhere, no <base>
 * redirects relative URLs, no frame or plugin. (There is no CSP directive for plain navigation;
 * pages never render run or model text as markup, so no link or refresh can be injected.)
 */
export const NO_NAVIGATION = "form-action 'none'; base-uri 'none'; frame-src 'none'; object-src 'none'";

/** The policy every Reach Audit webview uses; `cspSource` is webview.cspSource. */
export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return `default-src 'none'; img-src ${cspSource} data:; style-src ${cspSource}; script-src 'nonce-${nonce}'; font-src ${cspSource}; ${NO_NAVIGATION}`;
}

/** Escapes a value for a double-quoted attribute, leaving single quotes as they are (CSP keywords). */
export function escapeAttribute(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

export interface PanelPage {
  cspSource: string;
  nonce: string;
  /** Webview URIs (as strings) of the bundle's script and stylesheet. */
  scriptUri: string;
  styleUri: string;
  title: string;
}

/** The audit panel page: the bundle's stylesheet, an empty #app, the bundle's script (nonce). */
export function panelHtml(page: PanelPage): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(contentSecurityPolicy(page.cspSource, page.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${escapeHtml(page.styleUri)}">
<title>${escapeHtml(page.title)}</title>
</head>
<body>
<div id="app"></div>
<script nonce="${escapeHtml(page.nonce)}" src="${escapeHtml(page.scriptUri)}"></script>
</body>
</html>`;
}
