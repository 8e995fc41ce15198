/**
 * The documentation a newcomer walks: every relative link in README.md and docs/**.md reaches a file
 * and, with a #fragment into Markdown, a heading (GitHub's anchors); every `reach-audit` or
 * `node dist/cli.js` command in a shell block names a command and flags that its --help lists; the
 * README's two set-up commands are the demo and `npm test`, which .ci/run runs.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { commands } from '../../../src/cli/main';
import { commandHelp, helpFlags } from '../../../tools/referenceDocs/cliReference';
import { REPOSITORY_ROOT } from '../../../tools/referenceDocs/generatedReferences';
import { headingAnchors } from '../../../tools/referenceDocs/headingSlug';
import { cliCommandLines, markdownLinks, shellWords } from '../../../tools/referenceDocs/markdownCommands';

function markdownFiles(): string[] {
  const walk = (dir: string): string[] => fs.readdirSync(path.join(REPOSITORY_ROOT, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.md') ? [path.join(dir, e.name)] : []));
  return ['README.md', ...walk('docs')].sort();
}

const read = (file: string) => fs.readFileSync(path.join(REPOSITORY_ROOT, file), 'utf8');

test('every relative link in README.md and docs/ reaches a file, and each #anchor a heading there', () => {
  const broken: string[] = [];
  const files = markdownFiles();
  assert.ok(files.includes('docs/getting-started.md') && files.includes('docs/reference/cli.md'), files.join(', '));
  for (const file of files) {
    for (const { target, line } of markdownLinks(read(file))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [pathPart, anchor] = target.split('#', 2);
      const resolved = pathPart === '' ? file : path.normalize(path.join(path.dirname(file), decodeURIComponent(pathPart)));
      const full = path.join(REPOSITORY_ROOT, resolved);
      if (resolved.startsWith('..') || !fs.existsSync(full)) {
        broken.push(`${file}:${line}: ${target} (no ${resolved})`);
        continue;
      }
      if (anchor !== undefined && resolved.endsWith('.md') && !headingAnchors(read(resolved)).has(anchor)) {
        broken.push(`${file}:${line}: ${target} (no heading #${anchor} in ${resolved})`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test('every reach-audit command in a shell block of README.md and docs/ uses a command and flags its --help lists', async () => {
  const wrong: string[] = [];
  let checked = 0;
  const flagsOf = new Map<string, Set<string>>();
  for (const file of markdownFiles()) {
    for (const c of cliCommandLines(read(file))) {
      checked++;
      if (!(c.command in commands)) {
        wrong.push(`${file}:${c.line}: no command '${c.command}' (reach-audit --help lists ${Object.keys(commands).join(', ')}): ${c.text}`);
        continue;
      }
      if (!flagsOf.has(c.command)) flagsOf.set(c.command, helpFlags(await commandHelp(c.command)));
      const known = flagsOf.get(c.command) as Set<string>;
      for (const flag of c.flags) if (flag !== '--help' && !known.has(flag)) wrong.push(`${file}:${c.line}: reach-audit ${c.command} --help lists no ${flag}: ${c.text}`);
    }
  }
  assert.deepEqual(wrong, []);
  assert.ok(checked >= 30, `only ${checked} command lines found: is the shell-block reader still finding them?`);
});

test('the checks see what they should: a wrong flag, a wrong command, a comment, a broken anchor', async () => {
  const md = ['```sh', 'reach-audit audit --model m --no-such-flag # --also-not-a-flag', 'X=1 node dist/cli.js nosuch --x', "reach-audit grade --gold '# --x' \\", '  [--margin 5]', '```', 'See [a](#missing) and `[b](nowhere.md)`.'].join('\n');
  const lines = cliCommandLines(md);
  assert.deepEqual(lines.map((l) => [l.command, l.flags, l.line]), [['audit', ['--model', '--no-such-flag'], 2], ['nosuch', ['--x'], 3], ['grade', ['--gold', '--margin'], 4]]);
  assert.ok(!helpFlags(await commandHelp('audit')).has('--no-such-flag'));
  assert.ok(helpFlags(await commandHelp('audit')).has('--probe'));
  assert.deepEqual(markdownLinks(md), [{ target: '#missing', line: 7 }]);
  assert.deepEqual(shellWords(`a "b c" d#e # f`), ['a', 'b c', 'd#e']);
  assert.deepEqual([...headingAnchors('# A b\n## A b\n```\n# not\n```\n### `x.y` (z)\n')], ['a-b', 'a-b-1', 'xy-z']);
});

test("the README's set-up commands are the demo and npm test, and .ci/run runs the README's test command", () => {
  const readme = read('README.md');
  assert.ok(readme.includes('\n```sh\nnpm install && npm run demo\n```\n'), 'README.md: the demo command');
  assert.ok(readme.includes('\n```sh\nnpm test\n```\n'), 'README.md: the test command');
  assert.match(read('.ci/run'), /^npm test\b/m, '.ci/run runs npm test');
  assert.ok(readme.split('\n').length <= 150, `README.md has ${readme.split('\n').length} lines; the rest belongs in docs/`);
});
