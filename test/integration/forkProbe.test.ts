/**
 * The fork probe on the bundled demo pair, with the built CLI: records (the deployed output's token
 * record on every audited question, forks on the unrealized ones), summary and text, `compare` and
 * `table --kind forks` (CSV too); a question audited alone gets its record from the full run, two
 * merged shards equal the single run byte for byte, a resumed run with another fork budget is
 * refused; the records of every other probe are byte for byte those of a run without it; `audit
 * --backend openai` through `serve --http` gives the in-process records.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtCli, repoRoot, runCli, runCliAsync, startHttpServe } from '../support/cliRun';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-forks-'));
const demo = path.join(repoRoot, 'media/demo');
const data = path.join(demo, 'data/arith-test.jsonl');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const BASE_FLAGS = ['--limit', '10', '--probe', 'sample:3', '--max-new-tokens', '24', '--threads', '1'];
const FLAGS = [...BASE_FLAGS, '--fork-probe', '8'];

const run = (args: string[]) => runCli(args, { cwd: root, env });
const lines = (folder: string) => fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter(Boolean);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads records as JSON
const records = (folder: string): any[] => lines(folder).map((l) => JSON.parse(l));

describe('fork probe on the demo pair', () => {
  const base = path.join(root, 'base');
  const tuned = path.join(root, 'tuned');
  let reportText = '';
  before(async () => {
    assert.ok(fs.existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    const [b, t] = await Promise.all([
      runCliAsync(['audit', '--model', path.join(demo, 'base'), '--data', data, ...FLAGS, '--out', base], { cwd: root, env }),
      runCliAsync(['audit', '--model', path.join(demo, 'tuned'), '--data', data, ...FLAGS, '--out', tuned], { cwd: root, env }),
    ]);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(t.code, 0, t.stderr);
    assert.match(b.stderr, /fork probe up to 8 per unrealized question/, 'the estimate states the fork budget');
    reportText = run(['report', base]).stdout;
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('records the token record on every question and forks on the unrealized ones, within the budget', () => {
    const rs = records(base);
    const manifest = JSON.parse(fs.readFileSync(path.join(base, 'manifest.json'), 'utf8'));
    assert.deepEqual(manifest.forkProbe, { budget: 8, positions: 2, alternatives: 1, k: 4 });
    for (const r of rs) {
      assert.equal(r.deployedTokens.k, 4);
      assert.equal(r.deployedTokens.steps.length, r.realized.tokens, `${r.id}: one step per deployed token`);
      for (const s of r.deployedTokens.steps) {
        assert.equal(s.top.length, 4);
        assert.equal(s.top[0][0], s.token, 'greedy: the deployed token is the most likely one');
      }
      assert.equal(r.fork !== undefined, !r.realized.correct, `${r.id}: forks exactly where the deployment is wrong`);
      if (!r.fork) continue;
      assert.ok(r.fork.cost.generations <= 8);
      for (const f of r.fork.forks) {
        assert.equal(r.deployedTokens.steps[f.position].token, f.deployed.token);
        assert.notEqual(f.alternative.token, f.deployed.token);
      }
    }
    assert.ok(rs.some((r) => r.fork), 'the demo base model gets some questions wrong');
    const summary = JSON.parse(fs.readFileSync(path.join(base, 'summary.json'), 'utf8'));
    assert.equal(summary.fork.n, rs.filter((r) => r.fork).length);
    assert.match(reportText, /forks \(\d+ unrealized questions?, B 8: 2 highest-entropy and 2 random positions/);
    assert.match(reportText, /entropy vs random positions: .*under 20: counts only/);
  });

  it("leaves every other probe's records byte for byte as a run without it gives them", () => {
    const plain = path.join(root, 'plain');
    const r = run(['audit', '--model', path.join(demo, 'base'), '--data', data, ...BASE_FLAGS, '--out', plain]);
    assert.equal(r.code, 0, r.stderr);
    const without = lines(plain);
    records(base).forEach((rec, i) => {
      delete rec.deployedTokens;
      delete rec.fork;
      assert.equal(JSON.stringify(rec), without[i], `record ${i}`);
    });
  });

  it('gives a question audited alone its record from the full run, two merged shards the single run, and refuses another budget on resume', async () => {
    const rs = records(base);
    const target = rs.find((r) => r.fork) ?? rs[0];
    const alone = path.join(root, 'alone');
    const a = run(['audit', '--model', path.join(demo, 'base'), '--data', data, ...FLAGS.filter((f, i, all) => f !== '--limit' && all[i - 1] !== '--limit'), '--ids', target.id, '--out', alone]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(lines(alone)[0], lines(base)[rs.indexOf(target)]);
    const shards = await Promise.all([0, 1].map((i) => runCliAsync(['audit', '--model', path.join(demo, 'base'), '--data', data, ...FLAGS, '--shard', `${i}/2`, '--out', path.join(root, `s${i}`)], { cwd: root, env })));
    for (const s of shards) assert.equal(s.code, 0, s.stderr);
    const merged = path.join(root, 'merged');
    const m = run(['merge', path.join(root, 's1'), path.join(root, 's0'), '--out', merged]);
    assert.equal(m.code, 0, m.stderr);
    for (const file of ['records.jsonl', 'summary.json']) {
      assert.equal(fs.readFileSync(path.join(merged, file), 'utf8'), fs.readFileSync(path.join(base, file), 'utf8'), file);
    }
    const other = run(['audit', '--model', path.join(demo, 'base'), '--data', data, ...BASE_FLAGS, '--fork-probe', '12', '--out', base, '--resume']);
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /--fork-probe/);
  });

  it('resumes a stopped run to the records of an uninterrupted one', () => {
    const part = path.join(root, 'part');
    fs.mkdirSync(part);
    // A run stopped after 4 questions: its folder as the audit leaves it, resumed.
    const first = run(['audit', '--model', path.join(demo, 'base'), '--data', data, ...FLAGS, '--out', part]);
    assert.equal(first.code, 0, first.stderr);
    fs.writeFileSync(path.join(part, 'records.jsonl'), lines(part).slice(0, 4).join('\n') + '\n');
    fs.rmSync(path.join(part, 'summary.json'), { force: true });
    const resumed = run(['audit', '--model', path.join(demo, 'base'), '--data', data, ...FLAGS, '--out', part, '--resume']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual([...lines(part)].sort(), [...lines(base)].sort());
  });

  it('shows forks in compare and in table --kind forks, CSV too', () => {
    const cmp = path.join(root, 'cmp');
    const c = run(['compare', '--base-run', base, '--tuned-run', tuned, '--out', cmp]);
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, /forks base → tuned: \d+ questions unrealized by both/);
    const csv = path.join(root, 'forks.csv');
    const t = run(['table', cmp, '--kind', 'forks', '--csv', csv]);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /Forks: where another token keeps an answer the deployment loses/);
    assert.match(t.stdout, /Forks base → tuned: did training move the forks\?/);
    const rows = fs.readFileSync(csv.replace(/\.csv$/, '.forks.csv'), 'utf8').trim().split('\r\n');
    assert.equal(rows.length, 3, 'a header and the two runs');
    assert.match(rows[0], /^folder,model,dataset,finished,unrealized,budget,positions,alternatives,saved,saved_lo,saved_hi,saved_n/);
    const json = JSON.parse(run(['table', cmp, '--kind', 'forks', '--json']).stdout);
    assert.equal(json.forks.rows.length, 2);
    assert.equal(json.forks.transitions.length, 1);
    const html = path.join(root, 'cmp.html');
    assert.equal(run(['report', cmp, '--html', html]).code, 0);
    assert.match(fs.readFileSync(html, 'utf8'), /saved by a fork \(unrealized questions\)/);
  });

  it('runs through serve --http with the same records as in process', async () => {
    const server = await startHttpServe(['--model', path.join(demo, 'base'), '--threads', '1'], env);
    try {
      const out = path.join(root, 'remote');
      const r = run(['audit', '--model', path.join(demo, 'base'), '--data', data, ...FLAGS, '--backend', 'openai', '--base-url', server.url, '--out', out]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(lines(out), lines(base));
    } finally {
      server.stop();
    }
  });
});
