/**
 * The foreclosure window on the bundled demo model, with the built CLI: records on the depth-probed
 * questions only, the summary and its text; the other records byte for byte those of a run without
 * it; two shards merged equal the single run byte for byte; a stopped run resumed gives the full
 * run's records, and a resume with another test is refused; `serve --http` gives the in-process records.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtCli, repoRoot, runCli, runCliAsync, startHttpServe } from '../support/cliRun';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-foreclosure-'));
const demo = path.join(repoRoot, 'media/demo');
const data = path.join(demo, 'data/arith-test.jsonl');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const BASE_FLAGS = ['--limit', '12', '--probe', 'sample:4', '--max-new-tokens', '24', '--threads', '1', '--depth-probe', '2'];
const FLAGS = [...BASE_FLAGS, '--foreclosure-window', '8', '--foreclosure-threshold', '0.2'];

const run = (args: string[]) => runCli(args, { cwd: root, env });
const lines = (folder: string) => fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter(Boolean);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads records as JSON
const records = (folder: string): any[] => lines(folder).map((l) => JSON.parse(l));
const model = path.join(demo, 'base');

describe('foreclosure window on the demo model', () => {
  const full = path.join(root, 'full');
  let auditText = '';
  before(async () => {
    assert.ok(fs.existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    const r = await runCliAsync(['audit', '--model', model, '--data', data, ...FLAGS, '--out', full], { cwd: root, env });
    assert.equal(r.code, 0, r.stderr);
    auditText = run(['report', full]).stdout;
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('records a window search on every depth-probed question, and the summary and text say what it found', () => {
    const rs = records(full);
    assert.ok(rs.some((r) => r.depth), 'the demo base model has depth-probed questions');
    for (const r of rs) {
      assert.equal(r.foreclosure !== undefined, r.depth !== undefined, r.id);
      if (!r.foreclosure) continue;
      assert.deepEqual(r.foreclosure.test, { samples: 8, threshold: 0.2, error: 0.05, look: 4 });
      if (r.foreclosure.window) assert.ok(r.foreclosure.window.from < r.foreclosure.window.to);
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(full, 'manifest.json'), 'utf8'));
    assert.deepEqual(manifest.foreclosureWindow, { samples: 8, threshold: 0.2, error: 0.05, look: 4 });
    const summary = JSON.parse(fs.readFileSync(path.join(full, 'summary.json'), 'utf8'));
    assert.equal(summary.foreclosure.n, rs.filter((r) => r.depth).length);
    assert.match(auditText, /foreclosure window \(\d+ depth-probed questions?, \d+ with a depth bracket to narrow; at most 8 samples a prefix/);
    assert.match(auditText, /prefixes decided: \d+ reach, \d+ do not, \d+ undecided; cost \d+ generations/);
  });

  it('leaves every other record byte for byte as a run without it gives them', () => {
    const plain = path.join(root, 'plain');
    const r = run(['audit', '--model', model, '--data', data, ...BASE_FLAGS, '--out', plain]);
    assert.equal(r.code, 0, r.stderr);
    const without = lines(plain);
    records(full).forEach((rec, i) => {
      delete rec.foreclosure;
      assert.equal(JSON.stringify(rec), without[i], `record ${i}`);
    });
  });

  it('gives two merged shards the single run, and a stopped run resumed the full one', async () => {
    const shards = await Promise.all([0, 1].map((i) => runCliAsync(['audit', '--model', model, '--data', data, ...FLAGS, '--shard', `${i}/2`, '--out', path.join(root, `s${i}`)], { cwd: root, env })));
    for (const s of shards) assert.equal(s.code, 0, s.stderr);
    const merged = path.join(root, 'merged');
    const m = run(['merge', path.join(root, 's1'), path.join(root, 's0'), '--out', merged]);
    assert.equal(m.code, 0, m.stderr);
    for (const file of ['records.jsonl', 'summary.json']) assert.equal(fs.readFileSync(path.join(merged, file), 'utf8'), fs.readFileSync(path.join(full, file), 'utf8'), file);
    // A stopped run: its manifest and the first half of its records.
    const stopped = path.join(root, 'stopped');
    fs.mkdirSync(stopped);
    fs.copyFileSync(path.join(full, 'manifest.json'), path.join(stopped, 'manifest.json'));
    fs.writeFileSync(path.join(stopped, 'records.jsonl'), lines(full).slice(0, 6).join('\n') + '\n');
    const resumed = run(['audit', '--model', model, '--data', data, ...FLAGS, '--out', stopped, '--resume']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(records(stopped).sort((a, b) => a.line - b.line), records(full).sort((a, b) => a.line - b.line));
    const other = run(['audit', '--model', model, '--data', data, ...BASE_FLAGS, '--foreclosure-window', '12', '--out', stopped, '--resume']);
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /--foreclosure-window/);
  });

  it('refuses the window without the depth probe, naming what to add', () => {
    const r = run(['audit', '--model', model, '--data', data, '--limit', '2', '--foreclosure-window', '8', '--out', path.join(root, 'refused')]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--foreclosure-window 8 narrows the depth probe's bracket; add --depth-probe B/);
  });

  it('runs through serve --http with the same records as in process', async () => {
    const server = await startHttpServe(['--model', model, '--threads', '1'], env);
    try {
      const out = path.join(root, 'remote');
      const r = run(['audit', '--model', model, '--data', data, ...FLAGS, '--backend', 'openai', '--base-url', server.url, '--out', out]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(lines(out), lines(full));
    } finally {
      server.stop();
    }
  });
});
