/**
 * `reach-audit table`: the paper's tables built from many runs and comparisons — random routes vs
 * search at a matched budget per setting, repair per run, realized vs ceiling per comparison, the
 * perturbation probe against sampling and routes.
 */
import type { Command } from './command';
import { parseFlagsAndFolders } from './flags';
import { UsageError } from './command';
import { MARGIN_FLAG, parseMargin } from './marginFlag';
import { loadSources, writeTableFiles } from './tableFiles';
import { TABLE_KINDS, tableSet, tablesText } from '../audit/report';

const KINDS = [...TABLE_KINDS, 'all'] as const;

const help = [
  'Usage: reach-audit table RUN_OR_COMPARISON... [--kind KIND] [--csv FILE] [--md FILE] [--html FILE] [--json]',
  '',
  'Builds tables across runs (audit run folders) and checkpoint comparisons (compare folders):',
  '  routes-vs-search  one row per run: budgets and tokens of both probes, each reachable rate with',
  '                    its interval and chance level, the paired difference (Newcombe score 95%',
  '                    interval), McNemar p raw and Holm-adjusted, a verdict (better / worse /',
  '                    equivalent within the margin / inconclusive), and "routes non-inferior to',
  '                    search in X of Y settings; Z inconclusive" with the rule used; runs with',
  '                    unequal budgets or saturated by chance are listed apart, not counted',
  '  repair            one row per run with a repair scan: failure set, identified block, held-out',
  '                    repair rate with its Wilson interval and n, damage, the selection/held-out split,',
  '                    the random-block null (percentile bootstrap; exact Poisson-binomial p, Holm)',
  '  training          one row per comparison: realized and the ceiling (realized or reachable by any',
  '                    probe) base -> tuned with paired intervals, raw and Holm p and verdicts, the',
  '                    newly realized split, and "realized up while the ceiling does not rise in X',
  '                    of Y; Z inconclusive" with the rule used',
  '  perturbation      one row per run with --probe perturb: on the gain set (questions not',
  '                    realized), the reach of perturb, sample and routes at matched generations with',
  '                    intervals, tokens and block applications per generation, answer-blind picks,',
  '                    and the Jaccard overlap of the questions each probe reaches (Wilson interval of',
  '                    both / union; counts only below 20 in the union)',
  '  depth             one row per run with --depth-probe: the failure set\'s reach from each depth',
  '                    of the deployed output with Wilson intervals, the share lost in each quarter,',
  '                    early vs late as counts, whether reach falls with depth (exact within-question',
  '                    permutation test), and the cost',
  '  forks             one row per run with --fork-probe: the share of unrealized questions a fork',
  '                    saves (Wilson interval, n), within the failure set, the highest-entropy positions',
  '                    vs seeded random ones (paired: Newcombe interval, exact McNemar; counts only',
  '                    under 20), and per comparison saved base -> tuned on the questions neither realizes',
  '  learned-route     one row per run with learned-route: on the gain set, the share the cross-fitted',
  '                    router recovers beside the global route, the shuffled-label control and the',
  '                    routes probe\'s reach (Wilson intervals), and learned - global paired (Newcombe',
  '                    interval, exact McNemar, the verdict)',
  'A comparison whose two runs no longer match (deployment, budgets, seeds) is refused with the',
  'differences, as compare does, and so is a run that has not finished unless --allow-unfinished.',
  'Everything is recomputed from records.jsonl. An inconclusive row says roughly how many questions',
  'a decision would take (80% power at the observed difference and discordance).',
  '',
  'Options:',
  `  --kind KIND    ${KINDS.join(' | ')} (default all)`,
  '  --csv FILE     CSV with every number in its own column (with several tables: FILE.<kind>.csv)',
  '  --md FILE      Markdown tables, ready to paste',
  '  --html FILE    a self-contained HTML page',
  '  --json         the tables as JSON on stdout',
  '  --margin PTS   equivalence margin of the verdicts in percentage points (default 5)',
  '  --allow-unfinished   use runs that have not finished (their finished questions; rows marked)',
].join('\n');

export const tableCommand: Command = {
  help,
  async run(args) {
    const { values, positionals } = parseFlagsAndFolders(args, { kind: { type: 'string' }, csv: { type: 'string' }, md: { type: 'string' }, html: { type: 'string' }, json: { type: 'boolean' }, 'allow-unfinished': { type: 'boolean' }, ...MARGIN_FLAG });
    const margin = parseMargin(values.margin);
    const kind = values.kind ?? 'all';
    if (!(KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kind ${kind}: expected ${KINDS.join(', ')}`);
    if (positionals.length === 0) throw new UsageError('expected run or comparison folders: reach-audit table RUN_OR_COMPARISON...');
    const { runs, comparisons } = loadSources(positionals, { allowUnfinished: values['allow-unfinished'] === true });
    if (kind === 'training' && comparisons.length === 0) throw new UsageError('--kind training: expected comparison folders (written by reach-audit compare)');
    const { tables, views } = tableSet(runs, comparisons, { margin, kinds: kind === 'all' ? TABLE_KINDS : [kind as (typeof TABLE_KINDS)[number]] });
    for (const file of writeTableFiles(views, values, 'Reach Audit tables')) process.stderr.write(`reach-audit: wrote ${file}\n`);
    process.stdout.write(values.json ? JSON.stringify(tables, null, 2) + '\n' : tablesText(views));
    return 0;
  },
};
