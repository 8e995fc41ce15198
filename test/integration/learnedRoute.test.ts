/**
 * The learned-route selector on the bundled demo pair, with the built CLI: records carry the
 * router's features and fold, summary.json its cross-fitted choices and paired verdict, the text
 * report and compare say them; records of the other selectors are byte for byte those of a run
 * without it; two shards merged equal the single run byte for byte (the router is fit after the
 * merge, from the records); a resumed run equals the uninterrupted one; `serve --http` gives the
 * in-process records.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtCli, repoRoot, runCli, runCliAsync, startHttpServe } from '../support/cliRun';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-learned-route-'));
const demo = path.join(repoRoot, 'media/demo');
const data = path.join(demo, 'data/arith-test.jsonl');
const env = { ...process.env, REACH_AUDIT_CACHE: path.join(root, 'cache'), REACH_AUDIT_DEBUG: '' };
const BASE_FLAGS = ['--limit', '24', '--probe', 'routes:3', '--probe', 'search:3', '--global-routes', '4', '--max-new-tokens', '24', '--threads', '1'];
// Both feature sets, so that the pooled state read in the deployment's prefill goes through shards, resume and serve --http too.
const FLAGS = [...BASE_FLAGS, '--select', 'majority,confidence,global-route,learned-route', '--router-features', 'both'];

const run = (args: string[]) => runCli(args, { cwd: root, env });
const lines = (folder: string) => fs.readFileSync(path.join(folder, 'records.jsonl'), 'utf8').split('\n').filter(Boolean);
const read = (folder: string, file: string) => fs.readFileSync(path.join(folder, file), 'utf8');

describe('learned-route on the demo pair', () => {
  const base = path.join(root, 'base');
  const tuned = path.join(root, 'tuned');
  before(async () => {
    assert.ok(fs.existsSync(builtCli), `${builtCli} is missing: run npm run build first`);
    const [b, t] = await Promise.all([
      runCliAsync(['audit', '--model', path.join(demo, 'base'), '--data', data, ...FLAGS, '--out', base], { cwd: root, env }),
      runCliAsync(['audit', '--model', path.join(demo, 'tuned'), '--data', data, ...FLAGS, '--out', tuned], { cwd: root, env }),
    ]);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(t.code, 0, t.stderr);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('records features and folds, and summary.json the cross-fitted router beside the global route and the shuffled control', () => {
    const manifest = JSON.parse(read(base, 'manifest.json'));
    assert.equal(manifest.learnedRoute.folds, 5);
    assert.match(manifest.learnedRoute.model, /logistic/);
    for (const l of lines(base)) {
      const r = JSON.parse(l);
      assert.equal(r.routerFeatures.folds, 5);
      assert.ok(r.routerFeatures.fold >= 0 && r.routerFeatures.fold < 5);
      assert.equal(r.routerFeatures.features.length, 64);
      assert.equal(r.routerFeatures.state.length, 16);
      assert.equal(r.routerFeatures.reads, 'both');
    }
    assert.deepEqual(manifest.learnedRoute.features.state, { block: 4, dims: 16, projectionSeed: 53 });
    const s = JSON.parse(read(base, 'summary.json'));
    assert.equal(s.learnedRoute.n, 24);
    assert.equal(Object.keys(s.learnedRoute.choices).length, 24);
    assert.ok(s.selectors.includes('learned-route'));
    assert.equal(s.blindRetention.routes['learned-route'].n, 24);
    assert.ok(s.learnedRoute.versusGlobal.gainSet.decision.verdict);
    const text = run(['report', base]).stdout;
    assert.match(text, /Learned route: cross-fitted over 5 folds/);
    // What it read is said (it once said "the prompt's token ids (hashed)" whatever the run used).
    assert.equal(s.learnedRoute.reads, 'both');
    assert.match(text, /features: the prompt's token ids \(hashed\) and the deployment prefill's pooled state/);
    assert.match(text, /shuffled-label control − global route on the gain set/);
  });

  it('leaves every record byte for byte as a run without it, once its features are taken out', () => {
    const plain = path.join(root, 'plain');
    const r = run(['audit', '--model', path.join(demo, 'base'), '--data', data, ...BASE_FLAGS, '--out', plain]);
    assert.equal(r.code, 0, r.stderr);
    const without = lines(plain);
    lines(base).forEach((l, i) => {
      const rec = JSON.parse(l);
      delete rec.routerFeatures;
      assert.equal(JSON.stringify(rec), without[i], `record ${i}`);
    });
  });

  it('two merged shards equal the single run, and a resumed run the uninterrupted one, byte for byte', async () => {
    const shards = await Promise.all([0, 1].map((i) => runCliAsync(['audit', '--model', path.join(demo, 'base'), '--data', data, ...FLAGS, '--shard', `${i}/2`, '--out', path.join(root, `s${i}`)], { cwd: root, env })));
    for (const s of shards) assert.equal(s.code, 0, s.stderr);
    const merged = path.join(root, 'merged');
    const m = run(['merge', path.join(root, 's1'), path.join(root, 's0'), '--out', merged]);
    assert.equal(m.code, 0, m.stderr);
    for (const file of ['records.jsonl', 'summary.json']) assert.equal(read(merged, file), read(base, file), file);

    const resumed = path.join(root, 'resumed');
    fs.mkdirSync(resumed);
    fs.copyFileSync(path.join(base, 'manifest.json'), path.join(resumed, 'manifest.json'));
    fs.writeFileSync(path.join(resumed, 'records.jsonl'), lines(base).slice(0, 10).join('\n') + '\n');
    const r = run(['audit', '--model', path.join(demo, 'base'), '--data', data, ...FLAGS, '--out', resumed, '--resume']);
    assert.equal(r.code, 0, r.stderr);
    for (const file of ['records.jsonl', 'summary.json']) assert.equal(read(resumed, file), read(base, file), file);
    // Other folds make other routers: a resume with another fold count is refused, naming it.
    const other = run(['audit', '--model', path.join(demo, 'base'), '--data', data, ...FLAGS, '--router-folds', '3', '--out', resumed, '--resume']);
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /learned route/);
  });

  it('compare prints the base → tuned retention table with the learned row', () => {
    const c = run(['compare', '--base-run', base, '--tuned-run', tuned, '--out', path.join(root, 'cmp')]);
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, /Answer-blind retention of the routes probe's gain, base → tuned/);
    assert.match(c.stdout, /learned-route \(cross-fitted\): base: recovered/);
    assert.match(c.stdout, /learned vs global route of the same folds, gain set: base/);
  });

  // The served engine used to stop answering here ("cannot reach the server", exit 2): the client
  // kept --concurrency requests in flight per generate call, so an audit's concurrent calls opened
  // more connections than serve --http holds (64) and it closed the rest. With the features of the
  // pooled state, which the server reads during the deployment's prefill and sends back.
  it('runs through serve --http with the same records as in process', async () => {
    const server = await startHttpServe(['--model', path.join(demo, 'base'), '--threads', '1'], env);
    try {
      const out = path.join(root, 'remote');
      // Without the search probe (a lighter load on the server); the rest of each record as in process.
      const flags = FLAGS.filter((f, i, all) => !(f === '--probe' && all[i + 1] === 'search:3') && !(f === 'search:3'));
      // Asynchronously, so this process keeps reading the server's output while the audit runs.
      const r = await runCliAsync(['audit', '--model', path.join(demo, 'base'), '--data', data, ...flags, '--backend', 'openai', '--base-url', server.url, '--out', out], { cwd: root, env });
      assert.equal(r.code, 0, r.stderr);
      const local = lines(base).map((l) => {
        const rec = JSON.parse(l);
        delete rec.probes.search;
        delete rec.reachable.search;
        delete rec.blind.search;
        return JSON.stringify(rec);
      });
      assert.deepEqual(lines(out), local);
    } finally {
      server.stop();
    }
  });
});
