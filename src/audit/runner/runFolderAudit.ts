/**
 * An audit into a run folder: writes the manifest, streams records (and failure-set members) as
 * questions finish, resumes a stopped run, and writes summary.json and timings.json at the end.
 * The CLI and the extension both drive audits through here.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError, RemoteServerError, lockFolder, recoveredNote, describeFsError, isStorageError } from '../../common';
import { type TextGenerator, NonFiniteActivations } from '../../engine';
import { AuditAborted, auditQuestions } from './questionPipeline';
import type { FittedPrompts } from '../probes';
import { estimateAudit, type AuditEstimate } from './auditEstimate';
import { recordTokens, timeLeft } from './timeLeft';
import { GenerationTally } from './generationTally';
import type { Dataset, Question } from '../dataset';
import { checkPresetFormat } from '../presets';
import { manifestMismatches, FAILURE_SET_FILE, JsonLinesAppender, RECORDS_FILE, SUMMARY_FILE, TIMINGS_FILE, UnwritableLineError, prepareRunFolder, readJsonFile, readJsonLines, readManifest, readRecords, writeFileAtomic, writeJson, writeManifest } from '../store';
import { summarize } from '../results';
import { describeNumerics, numericsDifferences, numericsFor, type NumericsPlatform, type QuestionRecord, type RunSummary, type RemoteBackendInfo, type TokenizerSource, type RunManifest, type KvMemoryPlan, type KvCacheFidelity, type RunSettings } from '../../contract';
import { version as packageVersion } from '../../../package.json';

/** The version of reach-audit that writes a run (the package's, so a release changes it in one place). */
export const TOOL_VERSION: string = packageVersion;

/** How often progress is handed out while nothing finishes (the engine's token count moves every step). */
const PROGRESS_TICK_MS = 1000;

/** What a refused second writer of a run folder can do. */
export const RUN_FOLDER_ADVICE = 'wait for it to finish (or stop it), or choose another --out';

export interface AuditProgress {
  done: number;
  total: number;
  /** Questions finished in this session (a resumed run starts with some done). */
  doneThisSession: number;
  elapsedMs: number;
  /** Generations and generated tokens that came back in this session. */
  generations: number;
  generatedTokens: number;
  /**
   * Tokens the engine generated in this session, counted as each step chooses them (attempts
   * cancelled mid-way included); absent on a backend that cannot see its steps. Moves within
   * seconds, where `generatedTokens` moves only when a generation comes back.
   */
  engineTokens?: number;
  /** Generated tokens per second of this session so far (the engine's count when it has one); absent until there is something to measure. */
  tokensPerSecond?: number;
  /** Time left, the upper end of `timeLeft.ts`'s range; absent until measured. */
  remainingMs?: number;
  /** The lower end of that range. */
  remainingLeastMs?: number;
  /** What the range rests on, in words (finished questions, tokens each, measured speed). */
  remainingBasis?: string;
  /** The most the repair scan could add to the range while its share is not measured yet (timeLeft.ts). */
  remainingRepairMostMs?: number;
}

export interface RunAuditInput {
  model: TextGenerator;
  /** `backend`: the remote servers the generations ran on (absent: the in-process engine); `tokenizerFrom`: --tokenizer-from's folder. */
  modelInfo: { path: string; contentHash: string; backend?: RemoteBackendInfo; tokenizerFrom?: TokenizerSource };
  engineVersion: string;
  /** The machine the local engine computes on (numericsPlatform()); absent for a remote backend, whose servers decide. */
  numerics?: NumericsPlatform;
  /** --kv-memory: recorded in the manifest of a run it starts (scheduling only, so a resume does not compare it). */
  kvMemory?: KvMemoryPlan;
  /** An f16 cache's fidelity to the f32 cache, measured before the run (recorded in the manifest of a run it starts; a resume keeps the stored one). */
  kvCacheFidelity?: KvCacheFidelity;
  dataset: Dataset;
  questions: readonly Question[];
  settings: RunSettings;
  name: string;
  folder: string;
  resume: boolean;
  /** Questions open at once (see questionPipeline.ts). */
  inFlight: number;
  signal?: AbortSignal;
  onProgress?(p: AuditProgress): void;
  onWarning?(message: string): void;
  /** A question finished; called after its line was appended and flushed to records.jsonl. */
  onRecord?(record: QuestionRecord): void;
  /** When given, a short warm-up is timed before an audit of several questions starts and the plan handed out (auditEstimate.ts). */
  onEstimate?(estimate: AuditEstimate): void;
  /** The command that continues this run, quoted in errors that stop it (a full disk). */
  resumeCommand?: string;
  /** `--realized-from`: the deployment's outputs by question id, read from a log (settings.realizedFrom names it). */
  realized?: ReadonlyMap<string, string>;
  /** Prompts fitted before the run (the KV plan's pass): each question's is used instead of fitting it again. */
  fittedPrompts?: FittedPrompts;
}

/** What one stage's generations cost in a session (stages overlap in time, so no wall time each). */
export interface StageTiming {
  generations: number;
  tokens: number;
  calls: number;
}

export interface RunAuditResult {
  folder: string;
  /** Undefined when the run was stopped before finishing. */
  summary?: RunSummary;
  records: QuestionRecord[];
  stopped: boolean;
  timings: Record<string, StageTiming>;
}

export function buildManifest(input: Pick<RunAuditInput, 'modelInfo' | 'engineVersion' | 'numerics' | 'kvMemory' | 'kvCacheFidelity' | 'dataset' | 'questions' | 'settings' | 'name' | 'model'>): RunManifest {
  return {
    name: input.name,
    createdAt: new Date().toISOString(),
    tool: { name: 'reach-audit', version: TOOL_VERSION },
    engine: { version: input.engineVersion, weights: input.model.weights ?? 'f32', ...(input.model.kvCache === 'f16' ? { kvCache: 'f16' as const, ...(input.kvCacheFidelity ? { kvCacheFidelity: input.kvCacheFidelity } : {}) } : {}), ...(input.numerics ? { numerics: numericsFor(input.numerics, input.model.weights) } : {}), ...(input.kvMemory ? { kvMemory: input.kvMemory } : {}) },
    model: {
      path: path.resolve(input.modelInfo.path),
      contentHash: input.modelInfo.contentHash,
      numBlocks: input.model.numBlocks,
      // Written only when given, so the manifests of models with their own tokenizer read as before.
      ...(input.modelInfo.tokenizerFrom ? { tokenizerFrom: { path: path.resolve(input.modelInfo.tokenizerFrom.path), contentHash: input.modelInfo.tokenizerFrom.contentHash } } : {}),
    },
    dataset: {
      path: path.resolve(input.dataset.path),
      contentHash: input.dataset.contentHash,
      format: input.dataset.format,
      schema: input.dataset.schema,
      questions: input.questions.length,
      ...(input.dataset.split !== undefined ? { split: input.dataset.split } : {}),
    },
    ...input.settings,
    ...(input.modelInfo.backend ? { backend: input.modelInfo.backend } : {}),
  };
}

function hasRecords(folder: string): boolean {
  try {
    return fs.statSync(path.join(folder, RECORDS_FILE)).size > 0;
  } catch {
    return false;
  }
}

/**
 * Runs the audit holding the run folder's lock: a second writer (another audit, a second --resume)
 * is refused with the holder named, before it reads or writes anything in the folder.
 */
export async function runAudit(input: RunAuditInput): Promise<RunAuditResult> {
  const { folder } = input;
  checkPresetFormat(input.settings.deployment, input.dataset.format);
  if (input.resume) readManifest(folder); // a folder that is not a run fails here, before it is locked
  else prepareRunFolder(folder);
  const lock = lockFolder(folder, {
    purpose: `reach-audit audit, run ${JSON.stringify(input.name)}`,
    advice: RUN_FOLDER_ADVICE,
    onCompromised: (m) => input.onWarning?.(m),
  });
  if (lock.recovered !== undefined) input.onWarning?.(recoveredNote(folder, lock.recovered));
  try {
    return await runLockedAudit(input);
  } catch (err) {
    if (isStorageError(err)) throw storageFailure(err, input);
    throw err;
  } finally {
    lock.release();
  }
}

/** A write the storage refused (disk full, read-only, quota): which file, why, what is kept, how to go on. */
function storageFailure(err: NodeJS.ErrnoException, input: RunAuditInput): InputError {
  let kept = 0;
  try {
    kept = readRecords(input.folder).values.length;
  } catch {
    // unreadable too: say nothing about the count
  }
  const fix = err.code === 'ENOSPC' || err.code === 'EDQUOT' || err.code === 'EFBIG' ? 'free some space' : err.code === 'EROFS' ? 'make the folder writable' : 'fix the folder';
  const next = input.resumeCommand ?? 'the same command with --resume';
  return new InputError(
    `cannot write ${err.path ?? input.folder}: ${describeFsError(err)}. ${kept} finished question${kept === 1 ? ' is' : 's are'} kept in ${path.join(input.folder, RECORDS_FILE)}; ${fix}, then continue with: ${next}`,
  );
}

/**
 * Questions finish out of order (see questionPipeline.ts); a finished run's records.jsonl and
 * failure-set.jsonl are rewritten in dataset order, so the same audit gives the same files
 * however it was batched, sharded or resumed. Replaced atomically: a crash leaves the appended file.
 */
function inDatasetOrder(folder: string, finished: readonly QuestionRecord[]): void {
  const lines = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v) + '\n').join('');
  writeFileAtomic(path.join(folder, RECORDS_FILE), lines(finished));
  const failureFile = path.join(folder, FAILURE_SET_FILE);
  if (!fs.existsSync(failureFile)) return;
  const members = new Map(readJsonLines<{ id: string }>(failureFile).values.map((m) => [m.id, m]));
  writeFileAtomic(failureFile, lines(finished.map((r) => members.get(r.id)).filter((m) => m !== undefined)));
}

/** A server that failed mid-run: what it did, what is kept, and how to go on once it is fixed. */
function remoteFailure(err: RemoteServerError, kept: number, folder: string, resumeCommand: string | undefined): RemoteServerError {
  return new RemoteServerError(
    `${err.message}. ${kept} finished question${kept === 1 ? ' is' : 's are'} kept in ${path.join(folder, RECORDS_FILE)}; continue with: ${resumeCommand ?? 'the same command with --resume'}`,
  );
}

/** Activations that overflowed: which finished questions are kept (the others were not audited). */
function overflowFailure(err: NonFiniteActivations, kept: number, folder: string): InputError {
  return new InputError(
    `${err.message}. ${kept} finished question${kept === 1 ? ' is' : 's are'} kept in ${path.join(folder, RECORDS_FILE)}; the rest were not audited`,
  );
}

/**
 * A run resumed on a machine whose kernels differ from those that started it: its questions from
 * here on may decode differently (docs/design/across-machines.md, "Deterministic per question"). Said, and the
 * platform added to the manifest's `numericsAlso`, so every later reader knows the run is mixed.
 */
function noteOtherNumerics(folder: string, previous: RunManifest, here: NumericsPlatform, onWarning?: (m: string) => void): void {
  const known = [previous.engine.numerics, ...(previous.engine.numericsAlso ?? [])].filter((p): p is NumericsPlatform => p !== undefined);
  if (known.length === 0 || known.some((p) => numericsDifferences(p, here).length === 0)) return;
  onWarning?.(
    `this machine computes with ${describeNumerics(here)}; the run was started with ${describeNumerics(known[0])} (${numericsDifferences(known[0], here).join(', ')}): ` +
      'questions finished from now on may decode differently from the earlier ones; manifest.json records both',
  );
  writeManifest(folder, { ...previous, engine: { ...previous.engine, numericsAlso: [...(previous.engine.numericsAlso ?? []), here] } });
}

/**
 * `--resume` of a run made with other settings. The problems are kept apart so a caller can tell a
 * changed checkpoint (its content hash alone) from changed settings, which every checkpoint shares.
 */
export class ResumeRefused extends InputError {
  constructor(
    readonly folder: string,
    readonly problems: readonly string[],
  ) {
    // No flag brings another engine's numbers back: only the release that started the run can finish it.
    const engine = problems.some((p) => p.startsWith('engine version'))
      ? ' An engine of another version may compute other numbers, so finish this run with the reach-audit release that started it.'
      : '';
    super(`cannot resume ${folder}: it was made with different settings —\n  ${problems.join('\n  ')}\nStart a new run (leave out --resume) or resume with the original settings.${engine}`);
  }

  /** Whether only the model's contents differ (the checkpoint was rewritten), not the settings. */
  get onlyModelChanged(): boolean {
    return this.problems.every((p) => p.startsWith('model content hash'));
  }
}

async function runLockedAudit(input: RunAuditInput): Promise<RunAuditResult> {
  const { folder } = input;
  const manifest = buildManifest(input);
  let stored: QuestionRecord[] = [];
  if (input.resume) {
    const previous = readManifest(folder);
    const problems = manifestMismatches(previous, manifest);
    if (problems.length > 0) {
      throw new ResumeRefused(folder, problems);
    }
    const read = readRecords(folder);
    for (const w of read.warnings) input.onWarning?.(w);
    stored = read.values;
    if (input.numerics) noteOtherNumerics(folder, previous, numericsFor(input.numerics, input.model.weights), input.onWarning);
  } else {
    if (hasRecords(folder)) throw new InputError(`${folder} already holds an audit (${RECORDS_FILE}); pass --resume to continue it, or choose another --out`);
    writeManifest(folder, manifest);
  }

  const wanted = new Set(input.questions.map((q) => q.id));
  const doneIds = new Set(stored.filter((r) => wanted.has(r.id)).map((r) => r.id));
  const remaining = input.questions.filter((q) => !doneIds.has(q.id));
  const records = new Map(stored.map((r) => [r.id, r]));
  const failureFile = path.join(folder, FAILURE_SET_FILE);
  const failureRead = readJsonLines<{ id: string }>(failureFile);
  for (const w of failureRead.warnings) input.onWarning?.(w);
  const inFailureFile = new Set(failureRead.values.map((m) => m.id));

  // Tokens per question from the warm-up, until questions of the run itself have finished.
  let planned: { least: number; most: number } | undefined;
  // One question costs about what a warm-up would: no estimate for it.
  if (input.onEstimate && remaining.length > 1) {
    let estimate: AuditEstimate | undefined;
    try {
      estimate = await estimateAudit(input.model, remaining, input.settings, input.signal, undefined, input.fittedPrompts);
    } catch (err) {
      if (err instanceof RemoteServerError) throw remoteFailure(err, doneIds.size, folder, input.resumeCommand);
      throw err;
    }
    if (estimate) {
      input.onEstimate(estimate);
      planned = { least: (estimate.generations.least * estimate.tokensPerGeneration.least) / estimate.questions, most: (estimate.generations.most * estimate.tokensPerGeneration.most) / estimate.questions };
    }
  }

  const recordOut = new JsonLinesAppender(path.join(folder, RECORDS_FILE));
  const failureOut = input.settings.repair.enabled ? new JsonLinesAppender(failureFile) : undefined;
  const timings: Record<string, StageTiming> = {};
  const started = performance.now();
  let doneThisSession = 0;
  let generations = 0;
  let generatedTokens = 0;
  const finishedTokens: number[] = [];
  // Tokens by position in this session's questions, and how many of the first ones have all finished.
  const position = new Map(remaining.map((q, i) => [q.id, i]));
  const byPosition: number[] = [];
  const inOrder: number[] = [];
  const live = new GenerationTally(input.settings, input.model.numBlocks);
  const engineAtStart = input.model.tokensGenerated;
  const engineTokens = () => (engineAtStart === undefined || input.model.tokensGenerated === undefined ? undefined : input.model.tokensGenerated - engineAtStart);
  const progress = () => {
    const elapsedMs = performance.now() - started;
    const engine = engineTokens();
    const generationWork = live.work(remaining.length - doneThisSession, engine);
    const left = timeLeft({ questions: remaining.length, finished: finishedTokens, inOrder, returnedTokens: generatedTokens, elapsedMs, ...(planned ? { planned } : {}), generations: generationWork });
    const timed = engine ?? generatedTokens;
    input.onProgress?.({
      done: doneIds.size + doneThisSession,
      total: input.questions.length,
      doneThisSession,
      elapsedMs,
      generations,
      generatedTokens,
      ...(engine !== undefined ? { engineTokens: engine } : {}),
      ...(timed > 0 && elapsedMs > 0 ? { tokensPerSecond: (timed * 1000) / elapsedMs } : {}),
      ...(left !== undefined ? { remainingMs: left.mostMs, remainingLeastMs: left.leastMs, remainingBasis: left.basis } : {}),
      ...(left?.repairMostMs !== undefined ? { remainingRepairMostMs: left.repairMostMs } : {}),
    });
  };
  progress();
  // Live figures between finished generations: a long generation, or 32 questions in flight, would
  // otherwise leave the progress line unchanged for minutes.
  const ticker = input.onProgress ? setInterval(progress, PROGRESS_TICK_MS) : undefined;
  ticker?.unref();
  let stopped = false;
  try {
    await auditQuestions(
      input.model,
      remaining,
      input.settings,
      {
        onRecord: (r) => {
          try {
            recordOut.append(r);
          } catch (err) {
            // One record that cannot be written does not end the run: the others are kept, and a
            // resume audits this question again.
            if (!(err instanceof UnwritableLineError)) throw err;
            input.onWarning?.(`question ${r.id} is not recorded: ${err.message}`);
            return;
          }
          records.set(r.id, r);
          doneThisSession++;
          live.finished(r.id);
          const tokens = recordTokens(r);
          finishedTokens.push(tokens);
          byPosition[position.get(r.id) ?? -1] = tokens;
          while (byPosition[inOrder.length] !== undefined) inOrder.push(byPosition[inOrder.length]);
          input.onRecord?.(r);
          progress();
        },
        onFailureSet: (members) => {
          for (const m of members) {
            if (inFailureFile.has(m.id)) continue;
            failureOut?.append(m);
            inFailureFile.add(m.id);
          }
        },
        onGenerated: (s, gens, id) => {
          live.returned(s, gens, id, performance.now() - started);
          const t = (timings[s] ??= { generations: 0, tokens: 0, calls: 0 });
          t.calls++;
          for (const g of gens) {
            t.generations++;
            t.tokens += g.tokens.length;
            generations++;
            generatedTokens += g.tokens.length;
          }
          progress();
        },
      },
      { inFlight: input.inFlight, signal: input.signal, ...(input.realized ? { realized: input.realized } : {}), ...(input.fittedPrompts ? { fittedPrompts: input.fittedPrompts } : {}) },
    );
  } catch (err) {
    if (err instanceof NonFiniteActivations) throw overflowFailure(err, doneIds.size + doneThisSession, folder);
    if (err instanceof RemoteServerError) throw remoteFailure(err, doneIds.size + doneThisSession, folder, input.resumeCommand);
    if (!(err instanceof AuditAborted)) throw err;
    stopped = true;
  } finally {
    clearInterval(ticker);
    // Closing never hides the error that got us here (a full disk fails the close's fsync as well).
    for (const out of [recordOut, failureOut]) {
      try {
        out?.close();
      } catch {
        // the write error, if any, is already on its way up
      }
    }
    const previous = readJsonFile<{ sessions: unknown[] }>(path.join(folder, TIMINGS_FILE));
    writeJson(folder, TIMINGS_FILE, {
      sessions: [
        ...(previous?.sessions ?? []),
        {
          finishedAt: new Date().toISOString(),
          questions: doneThisSession,
          wallMs: Math.round(performance.now() - started),
          stopped,
          stages: timings,
          ...(engineTokens() !== undefined ? { engineTokens: engineTokens() } : {}),
        },
      ],
    });
  }

  const finished = input.questions.map((q) => records.get(q.id)).filter((r): r is QuestionRecord => r !== undefined);
  if (stopped) return { folder, records: finished, stopped, timings };
  inDatasetOrder(folder, finished);
  const summary = summarize(finished);
  writeJson(folder, SUMMARY_FILE, summary);
  return { folder, summary, records: finished, stopped, timings };
}
