/**
 * Measures learned-route with each feature set a run's records carry (run with
 * --router-features both): the hash buckets, the pooled state, both; beside the global route of the
 * same folds and the shuffled-label control. Prints, on the routes probe's gain set, what each
 * recovered (Wilson 95%) and learned − global paired (Newcombe, exact McNemar).
 *
 *   node out/tools/compareRouterFeatures.js RUN_DIR [RUN_DIR...]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { rateOf, type QuestionRecord, type RouterFeatures } from '../src/contract';
import { crossFit, DEFAULT_ROUTER_MODEL, type FoldRow } from '../src/audit/router';
import { DEFAULT_MARGIN, pairedDelta } from '../src/audit/stats';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function featuresOf(f: RouterFeatures, kind: 'hash' | 'state' | 'both'): number[] {
  if (kind === 'hash') return f.features;
  if (!f.state) throw new Error('the records carry no pooled state: audit with --router-features state or both');
  return kind === 'state' ? f.state : [...f.features, ...f.state];
}

function measure(dir: string): void {
  const records = fs.readFileSync(path.join(dir, 'records.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as QuestionRecord);
  const used = records.filter((r) => r.globalRoutes && r.globalRoutes.attempts.length > 0 && r.routerFeatures && r.probes.routes);
  const poolSize = Math.min(...used.map((r) => r.globalRoutes!.attempts.length));
  const folds = used[0].routerFeatures!.folds;
  const gain = used.map((r, i) => ({ r, i })).filter(({ r }) => !r.realized.correct).map(({ i }) => i);
  const reach = gain.filter((i) => used[i].reachable.routes === true).length;
  console.log(`${dir}: ${used.length} questions, pool ${poolSize}, ${folds} folds; gain set n ${gain.length}, reachable by the routes probe ${reach} (${pct(reach / gain.length)})`);
  let global: boolean[] | undefined;
  for (const kind of ['hash', 'state', 'both'] as const) {
    const rows: FoldRow[] = used.map((r) => ({ id: r.id, fold: r.routerFeatures!.fold, features: featuresOf(r.routerFeatures!, kind), correct: r.globalRoutes!.attempts.slice(0, poolSize).map((a) => a.correct) }));
    const chosen = crossFit(rows, folds, poolSize, DEFAULT_ROUTER_MODEL, ['summary']);
    const outcome = (picks: readonly number[]) => gain.map((i) => used[i].globalRoutes!.attempts[picks[i]].correct);
    const learned = outcome(chosen.learned);
    const shuffled = outcome(chosen.shuffled);
    global ??= outcome(chosen.global);
    const line = (name: string, xs: readonly boolean[]) => {
      const r = rateOf(xs.filter(Boolean).length, xs.length);
      return `${name} ${r.successes}/${r.n} ${pct(r.rate)} [${pct(r.ci.lo)}, ${pct(r.ci.hi)}]`;
    };
    const d = pairedDelta(global, learned, DEFAULT_MARGIN);
    const c = pairedDelta(global, shuffled, DEFAULT_MARGIN);
    if (kind === 'hash') console.log(`  ${line('global route of the same folds', global)}`);
    console.log(`  features ${kind}: ${line('learned', learned)}; ${line('shuffled control', shuffled)}`);
    console.log(`    learned − global ${(100 * d.delta).toFixed(1)} pts [${(100 * d.ci.lo).toFixed(1)}, ${(100 * d.ci.hi).toFixed(1)}] (${d.gained} vs ${d.lost}), McNemar p ${d.mcnemarP.toFixed(3)}: ${d.decision?.verdict ?? '—'}; shuffled − global ${(100 * c.delta).toFixed(1)} [${(100 * c.ci.lo).toFixed(1)}, ${(100 * c.ci.hi).toFixed(1)}] p ${c.mcnemarP.toFixed(3)}`);
  }
}

for (const dir of process.argv.slice(2)) measure(dir);
