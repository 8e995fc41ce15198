/**
 * One audit job, as both front ends run it (`reach-audit audit`/`compare` and the engine service):
 * first everything that does not need the model — options, model folder, dataset (its malformed
 * lines reported), the chosen questions, the run folder (new, or the one to resume) — then the
 * model, then the audit into the run folder. Callers differ only in where messages go and how a
 * model is held (the CLI loads and releases it; the service keeps the last one loaded).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertFolderFree, DEFAULT_MAX_BATCH, ENGINE_VERSION, numericsPlatform, InputError, keptAddedTokens, parseWeightPrecision, parseKvPrecision, publicUrl, readModelConfig, tokenizerFolder, type KvPrecision, type LoadOptions, type WeightPrecision } from '../engine/index';
import { issueWhere, type Dataset } from '../audit/dataset';
import { modelContentHash, tokenizerContentHash, latestRunFolder, MANIFEST_FILE, newRunFolder, prepareRunFolder } from '../audit/store';
import type { QuestionRecord, TokenizerSource } from '../contract';
import { RUN_FOLDER_ADVICE, runAudit, thinkingOfRun, type AuditProgress, type RunAuditResult, type AuditEstimate, type EstimateMemory } from '../audit/runner';
import { checkOptionRanges, type AuditOptions } from './auditOptions';
import { checkBackendOptions, isRemoteBackend, layerProbesRefused, openBackend, type OpenedBackend } from './backend';
import { checkPresetFormat, presetWarnings } from '../audit/presets';
import { FittedPrompts } from '../audit/probes';
import { readDataset, readPreSettings, runSettings, selectQuestions, type PreSettings, type Selection } from './auditInputs';
import { kvBudget, kvMemoryText, longestPrompt, longestRoute, planKvMemory } from './kvMemoryPlan';
import { estimateMemory, type KvRunShape } from './estimateMemory';
import { availableMemory } from './availableMemory';
import { checkLoggedOutputLengths, checkLoggedPrompts, readRealizedFrom } from './realizedFromLog';
import { chosenTemplateDate } from './templateDateChoice';
import { readManifest } from '../audit/store';
import { invalidUtf8Warning } from '../common';
import { kvCacheFidelity, kvCacheReference, kvFidelityQuestions, type KvCacheReference } from './kvCacheFidelityCheck';
import { kvCacheFidelityText } from '../audit/report';

export interface AuditJobPlan {
  options: AuditOptions;
  modelDir: string;
  /** The folder whose `.reach-audit/runs/` receives new runs. */
  workspace: string;
  /** The run name (the folder name's part); a function when it depends on the chosen questions. */
  name: string | ((selection: Selection) => string);
  /** How questions are chosen; default: the options' limit and ids. */
  select?: (dataset: Dataset) => Selection;
  /** With resume, start a new run when there is none to resume (a comparison resumes two runs; one may not have started). */
  resumeOrStart?: boolean;
  /** Messages that do not stop the job (malformed dataset lines, a torn record line). */
  warn(message: string): void;
  /** The command that continues the run in this folder, quoted in errors that stop it (a full disk). */
  resumeCommand?: (folder: string) => string;
  /**
   * The question count the settings are decided for (the global-route pool is skipped below a
   * size), when not the selection's: verify re-runs a sample of a run of this many questions.
   */
  poolQuestions?: number;
}

/** What a job asks of a model: the folder, its content hash, and how to load it. */
export interface ModelRequest {
  dir: string;
  contentHash: string;
  threads?: number;
  cacheDir?: string;
  maxBatch?: number;
  /** Projection weights: f32 when absent. */
  weights?: WeightPrecision;
  /** KV cache storage: f32 when absent. */
  kvCache?: KvPrecision;
  /** --tokenizer-from: the folder of the tokenizer files (absolute) and their hash; absent: the model folder's own. */
  tokenizer?: TokenizerSource;
  onProgress?: (message: string) => void;
}

/** The generator for the length of one job (the engine, or remote servers), and how to let it go. */
export type ModelLease = OpenedBackend;

export interface AuditJobRun {
  signal?: AbortSignal;
  /**
   * The local engine for this job (the service keeps one loaded between jobs). Default: load the
   * model for this job and release it after. Remote servers (`backend: openai`) are opened by the
   * job itself, with the same checks whoever runs it.
   */
  acquireModel?: (request: ModelRequest) => Promise<ModelLease>;
  onModelProgress?: (message: string) => void;
  /** The model is loaded (or the servers answered); the audit starts. Throwing here stops the job (the generator is released). */
  onModelReady?: () => void;
  onProgress?: (progress: AuditProgress) => void;
  onRecord?: (record: QuestionRecord) => void;
  /** When given, a short warm-up is timed before the first question and the plan handed out. */
  onEstimate?: (estimate: AuditEstimate) => void;
  /** The line stating each sequence's KV need and how many the budget runs at once, before the run: with --kv-memory SIZE, or when the default budget runs fewer than --max-batch. */
  onKvMemory?: (line: string) => void;
  /** The f16 cache's fidelity to the f32 cache, as measured before the run (--kv-cache f16, --kv-fidelity-questions). */
  onKvCacheFidelity?: (line: string) => void;
}

export interface AuditJobResult extends RunAuditResult {
  /** Milliseconds spent getting the model (0 when it was already loaded). */
  loadMs: number;
}

/** A job whose input is checked; `run` loads the model and audits. */
export interface PreparedAuditJob {
  name: string;
  folder: string;
  resume: boolean;
  dataset: Dataset;
  selection: Selection;
  run(how?: AuditJobRun): Promise<AuditJobResult>;
}

/** A new run folder; two runs started within the same second (two quick per-question audits) get distinct folders. */
function freshRunFolder(workspace: string, name: string): string {
  const folder = newRunFolder(workspace, name, new Date());
  let candidate = folder;
  for (let n = 2; fs.existsSync(candidate); n++) candidate = `${folder}-${n}`;
  return candidate;
}

/** The run folder and whether it is resumed: --out, else (with --resume) the newest run of that name, else a new folder. */
function chooseRunFolder(plan: AuditJobPlan, name: string): { folder: string; resume: boolean } {
  const { options, workspace } = plan;
  let folder = options.out;
  let resume = options.resume === true;
  if (resume && !folder) {
    folder = latestRunFolder(workspace, name);
    if (!folder && !plan.resumeOrStart) throw new InputError(`--resume: no run named '${name}' under ${path.join(workspace, '.reach-audit', 'runs')}; give the run folder with --out DIR`);
  }
  if (resume && folder && plan.resumeOrStart && !fs.existsSync(path.join(folder, MANIFEST_FILE))) folder = undefined;
  if (resume && !folder) resume = false;
  folder ??= freshRunFolder(workspace, name);
  // A folder another audit is writing is refused now, before the model loads (the lock itself is taken by runAudit).
  assertFolderFree(folder, RUN_FOLDER_ADVICE);
  if (!resume) {
    // An unwritable folder fails now, not after the model loads; the folder itself is made when the run starts.
    const existed = fs.existsSync(folder);
    prepareRunFolder(folder);
    if (!existed) fs.rmdirSync(folder);
  }
  return { folder, resume };
}

/** Checks everything that does not need the model; the returned job loads it and runs. */
export async function prepareAuditJob(plan: AuditJobPlan): Promise<PreparedAuditJob> {
  const { options } = plan;
  checkOptionRanges(options);
  const pre: PreSettings = readPreSettings(options);
  const weights = parseWeightPrecision(options.weights);
  const kvCache = parseKvPrecision(options.kvCache);
  const fidelityQuestions = kvFidelityQuestions(options.kvFidelityQuestions);
  const config = readModelConfig(path.resolve(plan.modelDir)); // a missing or broken model folder fails before any work
  const tokenizerDir = options.tokenizerFrom === undefined ? undefined : tokenizerFolder(plan.modelDir, options.tokenizerFrom);
  const dataset = await readDataset(options);
  checkPresetFormat(pre.deployment, dataset.format);
  if (dataset.invalidUtf8) plan.warn(invalidUtf8Warning(dataset.path, dataset.invalidUtf8));
  const shown = dataset.issues.slice(0, 10);
  for (const issue of shown) plan.warn(`${dataset.path}${issue.place ? `: ${issueWhere(issue)}` : `:${issue.line}`}: ${issue.message} (skipped)`);
  if (dataset.issues.length > shown.length) plan.warn(`${dataset.path}: ${dataset.issues.length - shown.length} more malformed lines skipped`);
  const selection = plan.select ? plan.select(dataset) : selectQuestions(dataset, options);
  for (const w of presetWarnings(pre.deployment, selection.questions)) plan.warn(w);
  checkBackendOptions(options);
  if (typeof pre.kvMemory === 'number' && isRemoteBackend(options)) {
    throw new InputError('--kv-memory budgets the local engine\'s KV caches; servers (--backend openai) manage their own (vLLM: --gpu-memory-utilization)');
  }
  const given = typeof plan.name === 'string' ? plan.name : plan.name(selection);
  // Each shard is its own run; merge joins them (and strips this suffix from the name).
  const name = selection.shard ? `${given}-shard-${selection.shard.index}-of-${selection.shard.count}` : given;
  const realized = options.realizedFrom !== undefined ? await readRealizedFrom(options.realizedFrom, selection.questions) : undefined;
  if (realized && pre.depthProbe !== undefined) throw new InputError("--depth-probe continues the deployed output's tokens, which a log does not hold; leave out --depth-probe or --realized-from");
  if (realized && pre.forkProbe !== undefined) throw new InputError("--fork-probe forks the deployed output at its tokens' entropies, which a log does not hold; leave out --fork-probe or --realized-from");
  const { folder, resume } = chooseRunFolder(plan, name);
  // An f16 run measures its cache against f32 when it starts (a resume keeps the stored figure), on
  // the first questions of the whole selection, so every shard of a run measures the same ones.
  const fidelityOn = kvCache === 'f16' && !resume && fidelityQuestions > 0 && !isRemoteBackend(options)
    ? (selection.shard ? selectQuestions(dataset, { limit: options.limit, ids: options.ids }).questions : selection.questions)
    : undefined;

  return {
    name,
    folder,
    resume,
    dataset,
    selection,
    async run(how = {}) {
      const contentHash = await modelContentHash(plan.modelDir);
      const tokenizer: TokenizerSource | undefined = tokenizerDir === undefined ? undefined : { path: tokenizerDir, contentHash: await tokenizerContentHash(tokenizerDir) };
      const request: ModelRequest = { dir: plan.modelDir, contentHash, threads: options.threads, cacheDir: options.cacheDir, maxBatch: pre.maxBatch, ...(weights ? { weights } : {}), ...(kvCache === 'f16' ? { kvCache } : {}), ...(tokenizer ? { tokenizer } : {}), onProgress: how.onModelProgress };
      const remote = isRemoteBackend(options);
      // The f32 reference first, its model released before the run's is loaded: one model at a time
      // (a service that still holds an earlier job's model holds it beside the reference meanwhile).
      let reference: KvCacheReference | undefined;
      if (fidelityOn && fidelityOn.length > 0) {
        how.onModelProgress?.(`KV cache fidelity: the first ${Math.min(fidelityQuestions, fidelityOn.length)} questions greedily with an f32 cache (loaded for this and released), then with the run's f16 cache`);
        reference = await kvCacheReference(plan.modelDir, loadOptions({ ...request, kvCache: undefined }), pre.deployment, fidelityOn, fidelityQuestions, how.signal);
      }
      const started = performance.now();
      if (remote) how.onModelProgress?.(`connecting to ${(options.baseUrl ?? []).map(publicUrl).join(', ')}`);
      const lease = await (how.acquireModel && !remote ? how.acquireModel(request) : openBackend(options, plan.modelDir, loadOptions(request), plan.warn));
      const loadMs = performance.now() - started;
      try {
        how.onModelReady?.();
        const model = lease.generator;
        const fidelity = reference ? await kvCacheFidelity(reference, model, how.signal) : undefined;
        if (fidelity) how.onKvCacheFidelity?.(kvCacheFidelityText({ version: ENGINE_VERSION, kvCache: 'f16', kvCacheFidelity: fidelity }) ?? '');
        const settings = runSettings(pre, model.numBlocks, { limit: selection.limit, ids: selection.ids, ...(selection.shard ? { shard: selection.shard } : {}) }, plan.poolQuestions ?? selection.shard?.ofQuestions ?? selection.questions.length);
        const templateDate = chosenTemplateDate(options.templateDate, resume ? readManifest(folder) : undefined, model.templateReadsDate, settings.deployment, plan.warn);
        if (templateDate !== undefined) settings.deployment = { ...settings.deployment, templateDate };
        const thinking = thinkingOfRun(pre.thinkingMarkers, keptAddedTokens(tokenizerDir ?? plan.modelDir), model, settings.deployment, selection.questions);
        if (thinking) settings.grading = { ...settings.grading, thinking };
        if (settings.globalRoutes.skipped) plan.warn(settings.globalRoutes.skipped);
        const maxBatch = pre.maxBatch ?? DEFAULT_MAX_BATCH;
        // Measured now, with the weights loaded (see kvBudget); servers manage their own memory.
        const budget = lease.setKvMemory ? kvBudget(pre.kvMemory, availableMemory) : null;
        // The run's shape for its KV need; longestPrompt fits every prompt, so once, when first asked
        // (before the questions run), keeping the fits for the run so that none is fitted twice.
        const fittedPrompts = new FittedPrompts(settings.deployment, model);
        let kvRun: KvRunShape | undefined;
        const kvRunShape = (): KvRunShape =>
          (kvRun ??= { routeLength: longestRoute(settings, model.numBlocks), promptTokens: longestPrompt(model, settings, selection.questions, fittedPrompts), maxNewTokens: settings.deployment.maxNewTokens, maxBatch, ...(model.kvCache === 'f16' ? { kvCache: model.kvCache } : {}) });
        const kvMemory = budget === null ? undefined : planKvMemory(config, budget, { ...kvRunShape(), numBlocks: model.numBlocks });
        lease.setKvMemory?.(kvMemory ? kvMemory.budgetBytes : null);
        const stated = kvMemory ? kvMemoryText(kvMemory, maxBatch) : undefined;
        if (stated) how.onKvMemory?.(stated);
        if (realized) {
          checkLoggedPrompts(realized, settings.deployment, selection.questions, model);
          checkLoggedOutputLengths(realized, settings.deployment, selection.questions, model);
          settings.realizedFrom = realized.setting;
        }
        const refused = layerProbesRefused(settings, lease.remote);
        if (refused.length > 0) {
          throw new InputError(
            `${refused.join(', ')} need layer access (routes, silenced MLPs, residual perturbation), which ${lease.remote!.baseUrls.join(', ')} does not offer: ` +
              'drop them (e.g. --probe sample:16 --select majority,confidence), run them with --backend local, or serve the model with `reach-audit serve --http`',
          );
        }
        const result = await runAudit({
          model,
          modelInfo: { path: plan.modelDir, contentHash, ...(lease.remote ? { backend: lease.remote } : {}), ...(tokenizer ? { tokenizerFrom: tokenizer } : {}) },
          engineVersion: ENGINE_VERSION,
          ...(lease.remote ? {} : { numerics: numericsPlatform() }),
          ...(kvMemory ? { kvMemory } : {}),
          ...(fidelity ? { kvCacheFidelity: fidelity } : {}),
          fittedPrompts,
          dataset,
          questions: selection.questions,
          settings,
          name,
          folder,
          resume,
          inFlight: pre.inFlight,
          signal: how.signal,
          onProgress: how.onProgress,
          onRecord: how.onRecord,
          ...(how.onEstimate ? { onEstimate: memoryBeside(how.onEstimate, lease.setKvMemory ? () => estimateMemory(config, model.weights ?? 'f32', kvMemory, kvRunShape()) : undefined) } : {}),
          onWarning: plan.warn,
          ...(plan.resumeCommand ? { resumeCommand: plan.resumeCommand(folder) } : {}),
          ...(realized ? { realized: new Map([...realized.byId].map(([id, r]) => [id, r.output])) } : {}),
        });
        return { ...result, loadMs };
      } finally {
        await lease.dispose();
      }
    },
  };
}

/** The estimate handed on with the run's memory beside its time; servers (no `memory`) keep their own. */
function memoryBeside(onEstimate: (estimate: AuditEstimate) => void, memory: (() => EstimateMemory) | undefined): (estimate: AuditEstimate) => void {
  return (estimate) => onEstimate(memory ? { ...estimate, memory: memory() } : estimate);
}

/** The engine's load options for a model request. */
export function loadOptions(request: ModelRequest): LoadOptions {
  return {
    ...(request.threads !== undefined ? { threads: request.threads } : {}),
    ...(request.cacheDir !== undefined ? { cacheDir: request.cacheDir } : {}),
    ...(request.maxBatch !== undefined ? { maxBatch: request.maxBatch } : {}),
    ...(request.weights !== undefined ? { weights: request.weights } : {}),
    ...(request.kvCache !== undefined ? { kvCache: request.kvCache } : {}),
    ...(request.tokenizer !== undefined ? { tokenizerDir: request.tokenizer.path } : {}),
    onProgress: request.onProgress,
  };
}

/** `<model folder>-<dataset file>`, the name of a run that was given none. */
export function defaultRunName(modelDir: string, dataPath: string): string {
  return `${path.basename(path.resolve(modelDir))}-${datasetName(dataPath)}`;
}

/** The name of a comparison that was given none: of two models on a dataset, or of two finished runs. */
export function defaultComparisonName(from: { baseModel: string; tunedModel: string; data: string } | { baseRun: string; tunedRun: string }): string {
  if ('baseRun' in from) return `${path.basename(from.baseRun)}-vs-${path.basename(from.tunedRun)}`;
  return `${path.basename(path.resolve(from.baseModel))}-vs-${path.basename(path.resolve(from.tunedModel))}-${datasetName(from.data)}`;
}

/** The dataset file's name without its extension. */
export function datasetName(dataPath: string): string {
  return path.basename(dataPath).replace(/\.(jsonl|json)$/i, '');
}
