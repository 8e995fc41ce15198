/**
 * `reach-audit explain RUN`: where, inside the model, each failure-set question's right answer is
 * lost (src/audit/mechanism). Writes mechanism.jsonl into the run folder, prints a strip per
 * question and the run table. `audit --explain` calls explainFolder after its audit.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Command } from './command';
import { UsageError, warn } from './command';
import { parseFlagsAndFolders, parseWholeNumber, progressToStderr } from './flags';
import { loadModel, tokenizerFolder } from '../engine/index';
import type { RunManifest } from '../contract';
import { readBenchmark } from '../audit/dataset';
import type { AnswerFormat, Question } from '../audit/dataset';
import { readManifest, readRecords } from '../audit/store';
import { modelContentHash, tokenizerContentHash } from '../audit/store';
import { explainRun, type ExplainResult } from '../audit/mechanism';
import { MECHANISM_FILE } from '../audit/mechanism';
import { mechanismStrip, mechanismTable } from '../audit/report';

const help = [
  'Usage: reach-audit explain RUN_FOLDER [--ids A,B] [--json] [--model DIR] [--data FILE]',
  '',
  'For each failure-set question of a finished run (reachable, not realized), finds where the',
  'deployed output and a correct probe attempt first differ (deployed token d, correct token g),',
  'runs the model once over that context under the default route and accounts per block:',
  '  lens g−d     logit(g) − logit(d) of the residual after the block, through the final norm',
  '               and the unembedding (the logit lens), with the ranks of g and d;',
  '  attention,   the block\'s attention and MLP output projected on the g − d unembedding',
  '  MLP          direction, the final norm\'s scale frozen at the last block (they sum, with the',
  '               embedding\'s term, to the last lens g−d); negative = pushes the answer away.',
  'The suppressor is the block whose MLP most lowers g − d. The run table gives how often each',
  'block is the suppressor and its agreement with the repair scan (the identified block, and the',
  'blocks that repair each question) against a block drawn at random, with an exact test.',
  '',
  'Writes RUN_FOLDER/mechanism.jsonl, one line per question as it finishes; run it again to',
  'continue a stopped explain (questions already there are kept, not recomputed).',
  '',
  'Options:',
  '  --ids A,B          only these question ids (of the failure set)',
  '  --json             print {"run","summary","accounts"} as JSON instead of text',
  "  --model DIR        the model folder, when it moved (its content must match the run's)",
  "  --data FILE        the dataset, when it moved (its content must match the run's)",
  "  --tokenizer-from DIR  the run's --tokenizer-from folder, when it moved (its tokenizer files must match)",
  '  --threads N        onnxruntime threads (default: all cores)',
  '  --cache-dir DIR    graph cache (default: $REACH_AUDIT_CACHE or ~/.cache/reach-audit/graphs)',
  '  --quiet            no per-question strips, only the run table',
].join('\n');

export interface ExplainFolderOptions {
  folder: string;
  modelDir?: string;
  dataFile?: string;
  /** The run's --tokenizer-from folder when it moved. */
  tokenizerDir?: string;
  ids?: string[];
  threads?: number;
  cacheDir?: string;
  onAccount?: Parameters<typeof explainRun>[0]['onAccount'];
}

/** The tokenizer folder the run used (--tokenizer-from, checked by the hash of its tokenizer files); undefined: the model folder's own. */
async function runTokenizerFolder(manifest: RunManifest, modelDir: string, given: string | undefined): Promise<string | undefined> {
  const recorded = manifest.model.tokenizerFrom;
  if (!recorded) {
    if (given !== undefined) throw new UsageError(`--tokenizer-from: this run read the model folder's own tokenizer files; leave the flag out`);
    return undefined;
  }
  const dir = tokenizerFolder(modelDir, given ?? recorded.path);
  if ((await tokenizerContentHash(dir)) !== recorded.contentHash) {
    throw new UsageError(`${dir}: not the tokenizer this run read (the hash of its tokenizer files differs from manifest.json's model.tokenizerFrom)${given === undefined ? '; give the folder with --tokenizer-from DIR' : ''}`);
  }
  return dir;
}

/** Explains a run folder with the run's own model and dataset (checked by content hash). */
export async function explainFolder(options: ExplainFolderOptions): Promise<ExplainResult & { records: ReturnType<typeof readRecords>['values'] }> {
  const { folder } = options;
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new UsageError(`${folder}: no such folder`);
  const manifest = readManifest(folder);
  const { values: records, warnings } = readRecords(folder);
  for (const w of warnings) warn(w);
  if (options.ids) {
    const recorded = new Set(records.map((r) => r.id));
    const unknown = options.ids.filter((id) => !recorded.has(id));
    if (unknown.length > 0) {
      const shown = unknown.slice(0, 10).map((id) => JSON.stringify(id)).join(', ');
      throw new UsageError(`--ids: ${shown}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ''} ${unknown.length === 1 ? 'is not a question' : 'are not questions'} of this run (${path.join(folder, 'records.jsonl')}); expected ids it recorded`);
    }
  }
  // An imported log names a model; it holds no weights, no repair scan and no failure set to explain.
  if (manifest.imported) {
    throw new UsageError(
      `${folder}: an evaluation log (${manifest.imported.tool}) imported as a run: no local model audited it, so it has no repair scan to explain, and --model cannot stand in for one. ` +
        `Audit a model on the log's own outputs first (reach-audit audit --model DIR --data FILE --realized-from ${folder} --repair), then explain that run`,
    );
  }
  const modelDir = options.modelDir ?? manifest.model.path;
  if (!fs.existsSync(path.join(modelDir, 'config.json'))) throw new UsageError(`${modelDir}: the run's model folder is not there; give it with --model DIR`);
  if ((await modelContentHash(modelDir)) !== manifest.model.contentHash) throw new UsageError(`${modelDir}: not the model this run audited (its content hash differs from manifest.json's)`);
  const tokenizerDir = await runTokenizerFolder(manifest, modelDir, options.tokenizerDir);
  const dataFile = options.dataFile ?? manifest.dataset.path;
  if (!fs.existsSync(dataFile)) throw new UsageError(`${dataFile}: the run's dataset is not there; give it with --data FILE`);
  const dataset = await readBenchmark(dataFile, { format: manifest.dataset.format as AnswerFormat, split: manifest.dataset.split });
  if (dataset.contentHash !== manifest.dataset.contentHash) throw new UsageError(`${dataFile}: not the dataset this run audited (its content hash differs from manifest.json's)`);
  const questions = new Map<string, Question>(dataset.questions.map((q) => [q.id, q]));

  const model = await loadModel(modelDir, { cacheDir: options.cacheDir, threads: options.threads, weights: manifest.engine.weights, kvCache: manifest.engine.kvCache, ...(tokenizerDir ? { tokenizerDir } : {}), onProgress: progressToStderr() });
  try {
    const result = await explainRun({ folder, manifest, records, questions, model, ids: options.ids, onAccount: options.onAccount });
    for (const w of result.warnings) warn(w);
    return { ...result, records };
  } finally {
    await model.dispose();
  }
}

/** The run table, and the strips unless quiet: what `explain` and `audit --explain` print. */
export function explainText(result: Awaited<ReturnType<typeof explainFolder>>, quiet: boolean): string {
  const byId = new Map(result.records.map((r) => [r.id, r]));
  const strips = quiet ? [] : result.accounts.map((a) => mechanismStrip(a, byId.get(a.id)) + '\n');
  return [...strips, mechanismTable(result.summary)].join('\n') + '\n';
}

export const explainCommand: Command = {
  help,
  async run(args) {
    const { values, positionals } = parseFlagsAndFolders(args, {
      ids: { type: 'string' },
      json: { type: 'boolean' },
      model: { type: 'string' },
      data: { type: 'string' },
      'tokenizer-from': { type: 'string' },
      threads: { type: 'string' },
      'cache-dir': { type: 'string' },
      quiet: { type: 'boolean' },
    });
    if (positionals.length !== 1) throw new UsageError('expected one run folder: reach-audit explain RUN_FOLDER');
    const ids = values.ids === undefined ? undefined : values.ids.split(',').map((s) => s.trim()).filter((s) => s !== '');
    if (ids && ids.length === 0) throw new UsageError('--ids: expected question ids, e.g. --ids 3,17');
    const twice = ids?.find((id, i) => ids.indexOf(id) !== i);
    if (twice !== undefined) throw new UsageError(`--ids: ${JSON.stringify(twice)} is given twice; expected each question once`);
    const folder = positionals[0];
    const started = Date.now();
    const result = await explainFolder({
      folder,
      modelDir: values.model,
      dataFile: values.data,
      ...(values['tokenizer-from'] !== undefined ? { tokenizerDir: values['tokenizer-from'] } : {}),
      ids,
      threads: parseWholeNumber(values.threads, '--threads', 1),
      cacheDir: values['cache-dir'],
      onAccount: process.stderr.isTTY ? (_a, done, total) => process.stderr.write(`\rexplain: ${done}/${total}`) : undefined,
    });
    if (process.stderr.isTTY && result.written > 0) process.stderr.write('\n');
    process.stderr.write(`explain: ${result.written} new accounts in ${((Date.now() - started) / 1000).toFixed(1)} s (${result.blockApplications} block applications); ${path.join(folder, MECHANISM_FILE)}\n`);
    const shown = ids ? result.accounts.filter((a) => ids.includes(a.id)) : result.accounts;
    if (ids) {
      const failureIds = new Set(result.accounts.map((a) => a.id));
      const outside = ids.filter((id) => !failureIds.has(id));
      if (outside.length > 0) warn(`not in the failure set (nothing to explain): ${outside.join(', ')}`);
    }
    if (values.json) process.stdout.write(JSON.stringify({ run: folder, summary: result.summary, accounts: shown }, null, 2) + '\n');
    else process.stdout.write(explainText({ ...result, accounts: shown }, values.quiet === true));
    return 0;
  },
};
