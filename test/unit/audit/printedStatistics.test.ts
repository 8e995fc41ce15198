/**
 * Every statistic a surface prints names its method, and every method named has its calibration
 * row. The surfaces are rendered on runs and a comparison of the fake engine (the terminal summary
 * of `report`, `compare`'s text, each `table` kind as text and HTML, the HTML run and comparison
 * reports, the `--help` of the commands that explain verdicts); each interval ("[a, b]") and each
 * p-value found in them is a printed statistic. One is named when its own line, the lines it sits
 * under (less indented, up to its section's title), or for a table row its table's title and
 * preamble name a method of its kind (a rate, a signed difference, a test) from the contract's
 * STATISTIC_METHODS; and every method there must be declared by a calibration group. So a new
 * statistic cannot land on a surface without a named method, nor a method without its row.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { STATISTIC_METHODS, type StatisticKind, type StatisticMethodKey } from '../../../src/contract/statisticMethods';
import { CALIBRATION_GROUPS } from '../../calibration/calibrationGroups';
import { runAudit } from '../../../src/audit/runner/runFolderAudit';
import { summarize } from '../../../src/audit/results/summary';
import { compareRecords } from '../../../src/audit/results/compare';
import { passAtKDeltas } from '../../../src/audit/results/passAtKDelta';
import { formatComparison, formatSummary, runReportHtml, tableSet, tablesHtml, tablesText } from '../../../src/audit/report';
import { tableCommand } from '../../../src/cli/table';
import { compareCommand } from '../../../src/cli/compare';
import { reportCommand } from '../../../src/cli/report';
import { trajectoryCommand } from '../../../src/cli/trajectory';
import { repairNullSentences } from '../../../webview/src/headline/repairNullView';
import { crossingSentence } from '../../../webview/src/comparison/passAtKDeltaText';
import type { RunForTables } from '../../../src/audit/results/tables';
import { DEFAULT_RATES, FakeGenerator, type FakeRates } from './fakeGenerator';
import { settingsFor, smallDataset, tempDir } from './fixtures';

const METHODS = Object.entries(STATISTIC_METHODS) as [StatisticMethodKey, (typeof STATISTIC_METHODS)[StatisticMethodKey]][];

/** The kinds of statistic the text names a method for. */
function namedKinds(text: string): Set<StatisticKind> {
  const kinds = new Set<StatisticKind>();
  for (const [, m] of METHODS) if (m.printed.some((w) => text.includes(w))) for (const k of m.measures) kinds.add(k);
  return kinds;
}

const INTERVAL = /\[\s*(?:95%\s*)?([-+−]?\d[\d.,]*)\s*(?:%|pts)?\s*(?:,|–)\s*([-+−]?\d[\d.,]*)\s*(?:%|pts)?\s*\]/g;
const HAS_INTERVAL = new RegExp(INTERVAL.source);
const P_VALUE = /\b(?:p|Holm)\s*(?:=|<)?\s*(?:\d|<)/g;

interface Printed { surface: string; line: string; kind: StatisticKind; figure: string }

function statisticsOf(line: string): { kind: StatisticKind; figure: string }[] {
  const out: { kind: StatisticKind; figure: string }[] = [];
  for (const m of line.matchAll(INTERVAL)) out.push({ kind: /^[-+−]/.test(m[1]) || /^[-+−]/.test(m[2]) ? 'difference' : 'rate', figure: m[0] });
  for (const m of line.matchAll(P_VALUE)) out.push({ kind: 'test', figure: m[0] });
  return out;
}

const indentOf = (l: string) => l.length - l.trimStart().length;

/**
 * Text surfaces: the scope of a line is itself, the lines above it with less indentation, and its
 * section's title and preamble (a section starts at an unindented line followed by indented ones;
 * its preamble is the indented lines right after the title, up to a blank line or the first line
 * with an interval in it: the rule text, not the results).
 */
function unnamedInText(surface: string, text: string): Printed[] {
  const lines = text.split('\n');
  const isTitle = (i: number) => lines[i].trim() !== '' && indentOf(lines[i]) === 0 && i + 1 < lines.length && lines[i + 1].trim() !== '' && indentOf(lines[i + 1]) > 0;
  const missing: Printed[] = [];
  let preamble: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (isTitle(i)) {
      preamble = [lines[i]];
      for (let j = i + 1; j < lines.length && lines[j].trim() !== '' && indentOf(lines[j]) > 0 && !HAS_INTERVAL.test(lines[j]); j++) preamble.push(lines[j]);
    }
    const stats = statisticsOf(lines[i]);
    if (stats.length === 0) continue;
    const scope = [lines[i], ...preamble];
    let indent = indentOf(lines[i]);
    for (let j = i - 1; j >= 0 && indent > 0; j--) {
      if (lines[j].trim() === '' || indentOf(lines[j]) >= indent) continue;
      scope.push(lines[j]);
      indent = indentOf(lines[j]);
    }
    const kinds = namedKinds(scope.join('\n'));
    for (const s of stats) if (!kinds.has(s.kind)) missing.push({ surface, line: lines[i].trim().slice(0, 160), ...s });
  }
  return missing;
}

/**
 * HTML surfaces as text: headings and captions become unindented titles after a blank line,
 * paragraphs and list items indented lines under them, a table a blank line and then its rows
 * unindented (so a row's scope is its section's title and preamble).
 */
function htmlAsText(html: string): string {
  return html
    .replace(/<(style|svg|script)\b[\s\S]*?<\/\1>/g, '')
    .replace(/<(h\d|caption)\b[^>]*>/g, '\n\n')
    .replace(/<\/(h\d|caption)>/g, '')
    .replace(/<table\b[^>]*>/g, '\n\n')
    .replace(/<tr\b[^>]*>/g, '\n')
    .replace(/<(p|li|div|section|details|summary|figcaption|dd|dt)\b[^>]*>/g, '\n  ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .split('\n')
    .map((l) => (l.trim() === '' ? '' : `${/^\s{2}/.test(l) ? '  ' : ''}${l.trim().replace(/\s+/g, ' ')}`))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n');
}

/** `--help`: each paragraph or option entry that speaks of an interval or a p must name a method. */
function unnamedInHelp(surface: string, help: string): Printed[] {
  const entries: string[] = [];
  for (const line of help.split('\n')) {
    const startsEntry = line.trim() === '' || /^ {2}\S/.test(line) || /^\S/.test(line) && (entries.length === 0 || entries[entries.length - 1] === '');
    if (startsEntry || entries.length === 0) entries.push(line.trim() === '' ? '' : line);
    else entries[entries.length - 1] += `\n${line}`;
  }
  return entries
    .filter((e) => /\binterval|\bp-value|\bp < 0\.\d|\bp raw\b/.test(e))
    .filter((e) => namedKinds(e).size === 0)
    .map((e) => ({ surface, line: e.replace(/\s+/g, ' ').slice(0, 160), kind: 'test' as const, figure: 'interval / p' }));
}

const dataset = smallDataset(40);

async function auditWith(rates: FakeRates): Promise<RunForTables> {
  const folder = tempDir();
  const settings = settingsFor(8, { depthProbe: { budget: 2 } });
  const model = new FakeGenerator(8, new Map(dataset.questions.map((q) => [q.text, q.gold])), rates);
  const result = await runAudit({ engineVersion: 'test', dataset, questions: dataset.questions, name: 't', inFlight: 8, modelInfo: { path: '/m', contentHash: 'h' }, settings, model, folder, resume: false });
  return { folder, model: `fake-${rates.deploy}`, dataset: 'test.jsonl', seed: settings.seeds.run, records: result.records, finished: true };
}

test('every method a surface may name has its calibration row', () => {
  const declared = new Set(CALIBRATION_GROUPS.flatMap((g) => g.methods));
  assert.deepEqual(METHODS.map(([k]) => k).filter((k) => !declared.has(k)), []);
});

test('every interval and p-value printed by report, compare, table and the HTML reports names its method', async () => {
  const base = await auditWith(DEFAULT_RATES);
  const tuned = await auditWith({ ...DEFAULT_RATES, deploy: 0.5, route: 0.35 });
  const summary = summarize(base.records);
  const comparison = compareRecords(base.records, tuned.records);
  const set = tableSet([base, tuned], [{ folder: 'c', dataset: 'test.jsonl', base, tuned }]);
  const surfaces: [string, string][] = [
    ['report (terminal)', formatSummary(summary)],
    ['compare (terminal)', formatComparison(comparison)],
    ['table (text)', tablesText(set.views)],
    ['table --html', htmlAsText(tablesHtml('tables', set.views))],
    ['report --html', htmlAsText(runReportHtml({ name: 'r', model: '/m', dataset: '/d', summary, records: base.records }))],
    // The panel's DOM-free sentences (the repair card's null, the comparison's ceilings along k): each a section of its own.
    ['panel: repair card', repairNullSentences(summary.repair?.identifiedBlock, summary.repair?.null).join('\n\n')],
    ['panel: ceilings along k', passAtKDeltas(base.records, tuned.records).map(crossingSentence).join('\n\n')],
  ];
  const found = surfaces.flatMap(([name, text]) => text.split('\n').flatMap(statisticsOf).map(() => name));
  // The fixture must exercise every surface, or the check below proves nothing.
  for (const [name] of surfaces) assert.ok(found.filter((n) => n === name).length >= (name.startsWith('panel') ? 1 : 5), `${name}: too few statistics printed to check`);
  const missing = surfaces.flatMap(([name, text]) => unnamedInText(name, text));
  assert.deepEqual(missing.map((m) => `${m.surface}: ${m.kind} ${m.figure} in "${m.line}"`), []);
});

test('the --help of the commands that explain verdicts names the method of every interval and test it mentions', () => {
  const missing = [
    ['table --help', tableCommand.help],
    ['compare --help', compareCommand.help],
    ['report --help', reportCommand.help],
    ['trajectory --help', trajectoryCommand.help],
  ].flatMap(([name, help]) => unnamedInHelp(name, help));
  assert.deepEqual(missing.map((m) => `${m.surface}: "${m.line}"`), []);
  // The Jaccard interval is Wilson's on the union, not a bootstrap.
  assert.doesNotMatch(tableCommand.help, /Jaccard[^.]*bootstrap/);
});

test('every panel file that formats an interval names a method in it (the DOM-built tables and cards, read as source)', () => {
  // The panel builds its tables and cards in a DOM; the harness (npm run test:webview) renders them.
  // Here the weaker check that needs no browser: a file that formats an interval says whose it is.
  const root = path.resolve(__dirname, '../../../../webview/src');
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) files.push(path.join(dir, e.name));
    }
  };
  walk(root);
  const formatsInterval = /intervalText\(|\[\$\{[^}]*\.lo\b|\.lo\)\}[,–]/;
  const unnamed = files
    .filter((f) => !f.endsWith(path.join('common', 'numberText.ts'))) // defines intervalText itself
    .filter((f) => formatsInterval.test(fs.readFileSync(f, 'utf8')))
    .filter((f) => namedKinds(fs.readFileSync(f, 'utf8')).size === 0)
    .map((f) => path.relative(root, f));
  assert.deepEqual(unnamed, []);
});
