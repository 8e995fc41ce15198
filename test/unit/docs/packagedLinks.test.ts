/**
 * What the installed extension shows of the README: the Extensions view renders README.md from the
 * installed folder, with relative links left as written (package.json declares no repository, and
 * `npm run package` passes --no-rewrite-relative-links), so every file the README links to — and every
 * file those documents link to in turn — must be in the .vsix that .vscodeignore describes.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPOSITORY_ROOT } from '../../../tools/referenceDocs/generatedReferences';
import { markdownLinks } from '../../../tools/referenceDocs/markdownCommands';

/** One .vscodeignore pattern as a regular expression over a repository-relative path (the subset of minimatch it uses: `**`, `*`, `?`, `{a,b}`). */
function globPattern(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (glob.startsWith('**/', i)) {
      out += '(?:.*/)?';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      out += '.*';
      i += 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '{') {
      const end = glob.indexOf('}', i);
      out += `(?:${glob.slice(i + 1, end).split(',').map((a) => a.replace(/[.+^$()|[\]\\]/g, '\\$&')).join('|')})`;
      i = end;
    } else out += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** Whether vsce packs `file` under these .vscodeignore lines: left out when a plain pattern matches it and no `!` pattern does. */
function packed(file: string, ignoreLines: string[]): boolean {
  const patterns = ignoreLines.map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  const matches = (p: string) => globPattern(p).test(file);
  const ignored = patterns.filter((p) => !p.startsWith('!')).some(matches);
  return !ignored || patterns.filter((p) => p.startsWith('!')).some((p) => matches(p.slice(1)));
}

/** Repository-relative files linked from README.md, following links through the Markdown files they reach. */
function linkedFiles(): Map<string, string> {
  const from = new Map<string, string>();
  const queue = ['README.md'];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const { target, line } of markdownLinks(fs.readFileSync(path.join(REPOSITORY_ROOT, file), 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(target.split('#')[0])));
      const full = path.join(REPOSITORY_ROOT, resolved);
      if (from.has(resolved) || !fs.existsSync(full)) continue;
      const files = fs.statSync(full).isDirectory() ? fs.readdirSync(full).map((f) => path.posix.join(resolved, f)) : [resolved];
      for (const f of files) if (!from.has(f)) {
        from.set(f, `${file}:${line}`);
        if (f.endsWith('.md')) queue.push(f);
      }
    }
  }
  return from;
}

test('every file the README links to, and the documents it reaches link to, is in the .vsix', () => {
  const ignore = fs.readFileSync(path.join(REPOSITORY_ROOT, '.vscodeignore'), 'utf8').split('\n');
  const linked = linkedFiles();
  assert.ok(linked.has('docs/getting-started.md') && linked.has('docs/design/statistics.md'), [...linked.keys()].join(', '));
  const left = [...linked].filter(([file]) => !packed(file, ignore)).map(([file, at]) => `${file} (linked at ${at})`);
  assert.deepEqual(left, [], 'files the installed README links to that .vscodeignore leaves out');
});

test('the pattern reader agrees with vsce on the lines .vscodeignore uses', () => {
  const ignore = fs.readFileSync(path.join(REPOSITORY_ROOT, '.vscodeignore'), 'utf8').split('\n');
  for (const file of ['package.json', 'README.md', 'dist/extension.js', 'dist/webview/main.js', 'dist/webview/codicons/codicon.ttf', 'media/reach-audit.svg']) {
    assert.ok(packed(file, ignore), file);
  }
  for (const file of ['src/cli/main.ts', 'out/test/x.js', 'dist/bench.js', 'node_modules/valibot/package.json', 'test/fixtures/a.md']) {
    assert.ok(!packed(file, ignore), file);
  }
  assert.ok(globPattern('a/**/*.{js,css}').test('a/b/c.css') && globPattern('a/**/*.{js,css}').test('a/c.js'));
  assert.ok(!globPattern('media/*.png').test('media/screenshots/x.png'));
});
