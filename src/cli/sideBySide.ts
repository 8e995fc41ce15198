/**
 * `compare --base-model/--tuned-model` audits the two checkpoints at the same time, each in its own
 * engine process (`reach-audit serve`, as the extension runs it) with its share of the threads.
 *
 * Why: a small model's decode step is bound by the cost of each engine call, not by arithmetic
 * (the demo model: 0.84 ms per block call, 67% of the time inside onnxruntime's run, most of it
 * per-call work that a second thread does not shorten), so two processes with one thread each do
 * nearly twice the work of one process with two. A record never depends on the threads or on
 * what else runs, so the runs equal those made one after the other, byte for byte (the
 * integration test checks it). Both models are held at once, so this is done only when they fit.
 */
import { EngineError, EngineProcess, type RequestEvent, type AuditRequestOptions } from '../service';
import { InputError, loadedWeightBytes, parseWeightPrecision, readModelConfig } from '../engine/index';
import { estimateLines, sideBySideProgress } from './progress';

/** Memory a loaded model takes beyond its weights, per engine process (runtime, graphs, caches). */
const PROCESS_OVERHEAD_BYTES = 400 * 1024 * 1024;
/** Measured peak: 1.17× the weights plus the KV cache (docs/design/engine.md, "Both sides of a comparison at once"); kept with room. */
const WEIGHTS_FACTOR = 1.3;
/** Share of the free memory two audits at once may plan to use. */
const FREE_MEMORY_SHARE = 0.7;

export interface SideBySideInput {
  /** `--one-at-a-time`. */
  oneAtATime: boolean;
  /** The models run on servers (`--backend openai`): nothing to run side by side here. */
  remote: boolean;
  /** `--threads`, when given. */
  threads?: number;
  cores: number;
  freeMemoryBytes: number;
  /** Bytes of each model's weights as the engine holds them (heldWeightBytes), base then tuned. */
  modelBytes: readonly [number, number];
}

export type SideBySidePlan = { sideBySide: true; threads: [number, number] } | { sideBySide: false; why?: string };

/** Whether to audit the two models at once, and each one's threads. */
export function planSideBySide(input: SideBySideInput): SideBySidePlan {
  if (input.oneAtATime || input.remote) return { sideBySide: false };
  const threads = input.threads ?? input.cores;
  if (threads < 2) return { sideBySide: false };
  const need = input.modelBytes.reduce((sum, bytes) => sum + WEIGHTS_FACTOR * bytes + PROCESS_OVERHEAD_BYTES, 0);
  if (need > FREE_MEMORY_SHARE * input.freeMemoryBytes) {
    const gb = (b: number) => `${(b / 1024 ** 3).toFixed(1)} GB`;
    const [base, tuned] = input.modelBytes;
    return { sideBySide: false, why: `both models at once need about ${gb(need)} (weights as loaded: base ${gb(base)}, tuned ${gb(tuned)}) and ${gb(input.freeMemoryBytes)} is free` };
  }
  return { sideBySide: true, threads: [Math.ceil(threads / 2), Math.floor(threads / 2)] };
}

/**
 * The weights one model's engine process holds, under the run's --weights: the figure the estimate
 * states (loadedWeightBytes). Not the checkpoint's parameters × 4: the embedding table stays on
 * disk, and int8 projections take about a quarter.
 */
export function heldWeightBytes(modelDir: string, weights: string | undefined): number {
  return loadedWeightBytes(readModelConfig(modelDir), parseWeightPrecision(weights) ?? 'f32');
}

export interface Side {
  label: 'base' | 'tuned';
  /** The audit request: the run folder chosen already (`out`), with `resume` as it was decided. */
  options: AuditRequestOptions;
}

export type SideOutcome = { label: Side['label']; stopped: false; folder: string } | { label: Side['label']; stopped: true; folder: string | null; done: number };

/**
 * Runs each side's audit in its own engine process and waits for both. Ctrl-C (the signal) stops
 * both after their current batch, keeping finished questions; if one fails, the other is stopped
 * the same way and the failure is thrown.
 */
export async function runSideBySide(
  sides: readonly Side[],
  cliPath: string,
  signal: AbortSignal,
  warn: (message: string) => void,
  /** Warnings printed already while the audits were checked (malformed dataset lines): not repeated. */
  alreadyWarned: ReadonlySet<string> = new Set(),
): Promise<SideOutcome[]> {
  const progress = sideBySideProgress(sides.map((s) => s.label));
  const started = Date.now();
  const engines = sides.map(() => new EngineProcess({ cliPath, ownProcessGroup: true, cancelGraceMs: 60_000 }));
  const onEvent = (label: string) => (event: RequestEvent) => {
    if (event.type === 'progress') {
      if (event.stage !== undefined && event.done === 0) progress.update(label, { stage: event.stage });
      else progress.update(label, { done: event.done, total: event.total, elapsedMs: Date.now() - started, ...(event.tokensPerSecond !== undefined ? { tokensPerSecond: event.tokensPerSecond } : {}), ...(event.generatedTokens !== undefined ? { engineTokens: event.generatedTokens } : {}), ...(event.eta !== null ? { remainingMs: event.eta * 1000 } : {}) });
    } else if (event.type === 'estimate') {
      progress.note(estimateLines(label, event.estimate).join('\n'));
    } else if (event.type === 'log') {
      if (event.level === 'warning') {
        if (!alreadyWarned.has(event.message)) progress.note(`reach-audit: warning: ${label}: ${event.message}`);
      }
      else progress.note(`${label}: ${event.message.replace(/^audit: /, '')}`);
    }
  };
  const handles = sides.map((side, i) => engines[i].request({ type: 'audit', options: side.options }, onEvent(side.label)));
  const cancelAll = () => handles.forEach((h) => h.cancel());
  signal.addEventListener('abort', cancelAll);
  // One side failing stops the other (its finished questions kept), then the failure is reported.
  handles.forEach((h) => h.result.catch(cancelAll));
  try {
    const settled = await Promise.allSettled(handles.map((h) => h.result));
    progress.done();
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      const err = failed.reason as unknown;
      const label = sides[settled.indexOf(failed)].label;
      if (err instanceof EngineError && err.kind === 'input') throw new InputError(`${label}: ${err.message}`);
      if (err instanceof EngineError && err.stderrTail) warn(`${label}: the engine process said: ${err.stderrTail.trim().split('\n').slice(-5).join(' | ')}`);
      throw err instanceof Error ? new Error(`${label}: ${err.message}`) : err;
    }
    return settled.map((s, i) => {
      const outcome = (s as PromiseFulfilledResult<Awaited<(typeof handles)[number]['result']>>).value;
      const label = sides[i].label;
      if (outcome.type === 'stopped') return { label, stopped: true, folder: outcome.runDir, done: outcome.done };
      return { label, stopped: false, folder: outcome.runDir };
    });
  } finally {
    signal.removeEventListener('abort', cancelAll);
    await Promise.all(engines.map((e) => e.dispose()));
  }
}
