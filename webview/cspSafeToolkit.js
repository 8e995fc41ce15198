// esbuild plugin for the webview bundle (used by esbuild.js and the panel test harness).
//
// @vscode/webview-ui-toolkit (through @microsoft/fast-web-utilities) tests for :focus-visible by
// appending an empty inline <style> element to <head>. Under the panel's strict CSP
// (style-src ${cspSource}, no 'unsafe-inline') that append is a reported violation. The plugin
// replaces the probe with the same test on a constructable stylesheet (CSSOM, which the CSP
// allows): same answer, no inline style. The build fails if the probe's code ever changes.
'use strict';
const fs = require('node:fs/promises');

const FILE = /[\\/]@microsoft[\\/]fast-web-utilities[\\/]dist[\\/]dom\.js$/;
const PROBE = /const styleElement = document\.createElement\("style"\);[\s\S]*?finally\s*\{\s*document\.head\.removeChild\(styleElement\);\s*\}/;
const REPLACEMENT =
  'try { new CSSStyleSheet().insertRule("foo:focus-visible {color:inherit}", 0); _canUseFocusVisible = true; }' +
  ' catch (e) { _canUseFocusVisible = false; }';

/** @type {import('esbuild').Plugin} */
const cspSafeToolkit = {
  name: 'csp-safe-toolkit',
  setup(build) {
    build.onLoad({ filter: FILE }, async (args) => {
      const source = await fs.readFile(args.path, 'utf8');
      if (!PROBE.test(source)) {
        return { errors: [{ text: `csp-safe-toolkit: the :focus-visible probe in ${args.path} is not the expected code; review webview/cspSafeToolkit.js` }] };
      }
      return { contents: source.replace(PROBE, REPLACEMENT), loader: 'js' };
    });
  },
};

module.exports = { cspSafeToolkit };
