/**
 * Runs one audit from command-line flags: dataset and settings checked first (before the model
 * loads), then the model, the run folder (new, or resumed), progress on stderr, Ctrl-C handling.
 * Shared by `audit` and `compare --base-model/--tuned-model`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError, warn } from './command';
import { parseWeights } from './engineArgs';
import { progressReporter, formatDuration } from './progress';
import { readDataset, readPreSettings, runSettings, selectQuestions, type AuditFlagValues } from './auditArgs';
import { checkBackendFlags, layerProbesRefused, openBackend } from './backendArgs';
import { ENGINE_VERSION } from '../engine/graphCache';
import { readModelConfig } from '../engine/config';
import { modelContentHash } from '../audit/run/modelFingerprint';
import { runAudit, type RunAuditResult } from '../audit/run/runFolderAudit';
import { latestRunFolder, MANIFEST_FILE, newRunFolder, prepareRunFolder } from '../audit/run/runStore';
import { parseWholeNumber } from './engineArgs';
import { assertFolderFree } from '../engine/folderLock';
import { writeControl } from './terminalText';
import { RUN_FOLDER_ADVICE } from '../audit/run/runFolderAudit';

export interface AuditPlan {
  values: AuditFlagValues;
  modelDir: string;
  /** Run name (folder name part). */
  name: string;
  /** Explicit run folder (--out, or a compare sub-folder). */
  folder?: string;
  label: string;
  /** With --resume, start a new run when there is none to resume (compare resumes two runs, one may not have started). */
  resumeOrStart?: boolean;
}

/** Checks everything that does not need the model; returns a function that runs the audit. */
export function prepareAudit(plan: AuditPlan): (signal: AbortSignal) => Promise<RunAuditResult> {
  const { values } = plan;
  const pre = readPreSettings(values);
  readModelConfig(path.resolve(plan.modelDir)); // a missing or broken model folder fails before any work
  const dataset = readDataset(values);
  const shown = dataset.issues.slice(0, 10);
  for (const issue of shown) warn(`${dataset.path}:${issue.line}: ${issue.message} (skipped)`);
  if (dataset.issues.length > shown.length) warn(`${dataset.path}: ${dataset.issues.length - shown.length} more malformed lines skipped`);
  const selected = selectQuestions(dataset, values);
  checkBackendFlags(values);
  // Each shard is its own run; merge joins them (and strips this suffix from the name).
  const name = selected.shard ? `${plan.name}-shard-${selected.shard.index}-of-${selected.shard.count}` : plan.name;
  const threads = parseWholeNumber(values.threads, '--threads', 1);
  const workspace = process.cwd();
  let folder = plan.folder;
  let resume = values.resume === true;
  if (resume && !folder) {
    folder = latestRunFolder(workspace, name);
    if (!folder && !plan.resumeOrStart) throw new UsageError(`--resume: no run named '${name}' under ${path.join(workspace, '.reach-audit', 'runs')}; give the run folder with --out DIR`);
  }
  if (resume && folder && plan.resumeOrStart && !fs.existsSync(path.join(folder, MANIFEST_FILE))) folder = undefined;
  if (resume && !folder) resume = false;
  folder ??= newRunFolder(workspace, name, new Date());
  // A folder another audit is writing is refused now, before the model loads (the lock itself is taken by runAudit).
  assertFolderFree(folder, RUN_FOLDER_ADVICE);
  if (!resume) {
    // An unwritable --out fails now, not after the model loads; the folder itself is made when the run starts.
    const existed = fs.existsSync(folder);
    prepareRunFolder(folder);
    if (!existed) fs.rmdirSync(folder);
  }

  return async (signal) => {
    const started = performance.now();
    const backend = await openBackend(values, plan.modelDir, {
      threads,
      cacheDir: values['cache-dir'],
      weights: parseWeights(values.weights),
      ...(pre.maxBatch ? { maxBatch: pre.maxBatch } : {}),
      onProgress: process.stderr.isTTY ? (m) => (writeControl(process.stderr, '\r\x1b[2K'), process.stderr.write(`${plan.label}: ${m}`)) : undefined,
    });
    const model = backend.generator;
    if (process.stderr.isTTY) writeControl(process.stderr, '\r\x1b[2K');
    const loadMs = performance.now() - started;
    try {
      const contentHash = await modelContentHash(plan.modelDir);
      const settings = runSettings(pre, model.numBlocks, { limit: selected.limit, ids: selected.ids, ...(selected.shard ? { shard: selected.shard } : {}) }, selected.shard?.ofQuestions ?? selected.questions.length);
      if (settings.globalRoutes.skipped) warn(`${plan.label}: ${settings.globalRoutes.skipped}`);
      const refused = layerProbesRefused(settings, backend.remote);
      if (refused.length > 0) {
        throw new UsageError(
          `${refused.join(', ')} need layer access (routes, silenced MLPs), which ${backend.remote!.baseUrls.join(', ')} does not offer: ` +
            'drop them (e.g. --probe sample:16 --select majority,confidence), run them with --backend local, or serve the model with `reach-audit serve --http`',
        );
      }
      const progress = progressReporter(plan.label);
      const result = await runAudit({
        model,
        modelInfo: { path: plan.modelDir, contentHash, ...(backend.remote ? { backend: backend.remote } : {}) },
        engineVersion: ENGINE_VERSION,
        dataset,
        questions: selected.questions,
        settings,
        name,
        folder: folder!,
        resume,
        chunkSize: pre.chunkSize,
        signal,
        onProgress: (p) => progress.update(p),
        onWarning: warn,
        resumeCommand: resumeCommand(folder!, process.argv.slice(2)),
      });
      progress.done();
      const stages = Object.entries(result.timings).map(([s, t]) => `${s} ${formatDuration(t.ms)} (${t.generations} gen)`);
      process.stderr.write(`${plan.label}: model load ${formatDuration(loadMs)}; ${stages.join(', ')}\n`);
      process.stderr.write(`${plan.label}: run folder ${result.folder}\n`);
      return result;
    } finally {
      await backend.dispose();
    }
  };
}

/** A word as a POSIX shell reads it back. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command line that continues this run: this one plus --resume (and --out for an audit that had none). */
export function resumeCommand(folder: string, argv: readonly string[]): string {
  const args = argv.filter((a) => a !== '--resume');
  const hasOut = args.some((a) => a === '--out' || a.startsWith('--out='));
  const out = args[0] === 'audit' && !hasOut ? ['--out', folder] : [];
  return ['reach-audit', ...args, '--resume', ...out].map(shellWord).join(' ');
}

/** An AbortSignal tied to Ctrl-C: the first stops after the current batch (finished questions are kept), the second exits at once. */
export function interruptSignal(hint: () => string): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) {
      process.stderr.write('\nreach-audit: stopped. Every finished question is on disk.\n');
      process.exit(130);
    }
    process.stderr.write(`\nreach-audit: stopping — finished questions are kept (${hint()}). Press Ctrl-C again to quit now.\n`);
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  return { signal: controller.signal, release: () => process.off('SIGINT', onSigint) };
}

export function defaultRunName(modelDir: string, dataPath: string): string {
  return `${path.basename(path.resolve(modelDir))}-${path.basename(dataPath).replace(/\.(jsonl|json)$/i, '')}`;
}
