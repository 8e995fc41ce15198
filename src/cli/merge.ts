/**
 * `reach-audit merge`: joins the run folders of a sharded audit (`audit --shard I/N`) into one run,
 * or the comparison folders of a sharded `compare` into one comparison.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from './command';
import { parseFlagsAndFolders } from './flags';
import { UsageError, warn } from './command';
import { COMPARISON_FILE, compareRuns, readComparison, writeComparison, mergeShards } from '../audit/store';
import { formatComparison, formatSummary, retentionTableLines } from '../audit/report';

const help = [
  'Usage: reach-audit merge SHARD_FOLDER... --out FOLDER [--name NAME]',
  '',
  'Joins the N run folders of `audit --shard I/N` (or the N comparison folders of `compare --shard I/N`)',
  'into one run (or comparison) whose records.jsonl and summary.json are those a single machine',
  'would have written with the same settings and seed. Refuses shards whose model, dataset,',
  'settings, seeds or engine differ, and names a missing, duplicated or unfinished shard, a question',
  'held twice with different content, and (when the run\'s dataset is at hand) a record whose gold or',
  'verdicts are not those its outputs grade to.',
  'Steps that look across questions (the global route, the repair block, every rate and interval)',
  'are computed from the joined records.',
  '',
  'Options:',
  '  --out FOLDER   the merged run (or comparison) folder; must not hold an audit yet',
  '  --name NAME    name of the merged run (default: the shards\' name)',
].join('\n');

export const mergeCommand: Command = {
  help,
  async run(args) {
    const { values, positionals } = parseFlagsAndFolders(args, { out: { type: 'string' }, name: { type: 'string' } });
    if (positionals.length === 0) throw new UsageError('expected the shard folders: reach-audit merge SHARD_FOLDER... --out FOLDER');
    if (!values.out) throw new UsageError('--out: expected the folder for the merged run');
    for (const folder of positionals) {
      if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new UsageError(`${folder}: no such folder`);
    }
    const comparisons = positionals.filter((f) => fs.existsSync(path.join(f, COMPARISON_FILE)));
    if (comparisons.length > 0 && comparisons.length < positionals.length) {
      throw new UsageError(`give either shard run folders or shard comparison folders, not both (comparisons: ${comparisons.join(', ')})`);
    }
    if (comparisons.length === 0) {
      const merged = mergeShards(positionals, values.out, warn, values.name);
      process.stderr.write(`reach-audit: merged ${positionals.length} shards, ${merged.records} questions, into ${merged.folder}\n`);
      process.stdout.write(formatSummary(merged.summary, merged.manifest.name) + '\n');
      return 0;
    }
    // A sharded compare: merge the base shards and the tuned shards, then compare the merged runs.
    const stored = comparisons.map((f) => {
      const c = readComparison(f)!;
      return { base: c.base.folder, tuned: c.tuned.folder };
    });
    const base = mergeShards(stored.map((s) => s.base), path.join(values.out, 'base'), warn, values.name && `${values.name}-base`);
    const tuned = mergeShards(stored.map((s) => s.tuned), path.join(values.out, 'tuned'), warn, values.name && `${values.name}-tuned`);
    const comparison = compareRuns(base.folder, tuned.folder, warn);
    writeComparison(values.out, comparison);
    process.stderr.write(`reach-audit: merged ${comparisons.length} shard comparisons into ${values.out}\n`);
    process.stdout.write([formatSummary(base.summary, `Base — ${base.manifest.name}`), '', formatSummary(tuned.summary, `Tuned — ${tuned.manifest.name}`), '', formatComparison(comparison.comparison), ...retentionTableLines([{ label: 'base', summary: base.summary }, { label: 'tuned', summary: tuned.summary }])].join('\n') + '\n');
    return 0;
  },
};
