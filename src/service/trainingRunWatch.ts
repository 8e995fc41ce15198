/**
 * Watches a training run's output folder and audits each checkpoint folder that appears in it,
 * one at a time, in training order, once its files are complete; after each audit the caller
 * rewrites the trajectory. Polls the folder (a watcher's events are unreliable on network and
 * container file systems, where training runs often write). Stops when the signal aborts (the
 * audit in progress keeps its finished questions and resumes next time), after a quiet spell, or
 * once enough checkpoints are done.
 */
import * as path from 'node:path';
import { InputError, isStorageError } from '../common';
import { ResumeRefused } from '../audit/runner';
import { CheckpointQueue, type WatchStatus } from './checkpointQueue';
import { readiness, sameSnapshot, type FolderSnapshot, type Readiness, type WeightsCheck } from './checkpointReadiness';
import { candidateFolders, checkCheckpointWeights, checkpointGoneWhy, snapshotFolder } from './checkpointFolder';

/**
 * `every-question`: off a terminal, the CLI's audits print a progress line each time a question
 * finishes (not every 5 s), for a reader that counts them (VS Code's Watch Training Run).
 */
export const PROGRESS_LINES_ENV = 'REACH_AUDIT_PROGRESS_LINES';

export interface WatchedCheckpoint {
  name: string;
  dir: string;
}

export interface TrainingRunWatchPlan {
  /** The folder the trainer writes checkpoint folders into. */
  dir: string;
  pollMs: number;
  /** Stop once no checkpoint has been audited, queued, or appeared or changed in `dir` for this long. */
  untilIdleMs?: number;
  /** Stop once this many checkpoints are done (those of an earlier watch included). */
  maxCheckpoints?: number;
  /** Checkpoints audited by an earlier watch whose folders the trainer has since deleted. */
  done?: Iterable<string>;
  /**
   * A checkpoint still in `dir` that an earlier watch audited to the end: its files held still then,
   * so it is ready at first sight (resumed at once, not shown as being written after a restart).
   */
  auditedBefore?: (name: string) => boolean;
  signal: AbortSignal;
  /** Audits one checkpoint; resolves 'stopped' when the signal stopped it. */
  audit(checkpoint: WatchedCheckpoint, signal: AbortSignal): Promise<'done' | 'stopped'>;
  /** Every change of status. */
  onStatus(status: WatchStatus): void;
  /** A checkpoint finished: every done checkpoint, in training order. */
  onDone(done: readonly string[]): void | Promise<void>;
  /** Default: a timer that the signal cuts short. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface TrainingRunWatchResult {
  /** interrupted: the signal; idle: untilIdleMs passed with nothing to do; enough: maxCheckpoints done. */
  ended: 'interrupted' | 'idle' | 'enough';
  status: WatchStatus;
}

function sleepFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

export async function watchTrainingRun(plan: TrainingRunWatchPlan): Promise<TrainingRunWatchResult> {
  const queue = new CheckpointQueue(plan.done);
  const snapshots = new Map<string, FolderSnapshot>();
  /**
   * Folders whose files held still but did not read, with the files as they were then: the same
   * files give the same answer, so they are read again only once they change. Before, a folder that
   * never became readable was read every poll for as long as the watch ran (55% of a core).
   */
  const unreadable = new Map<string, { files: FolderSnapshot; problem: string }>();
  const checkWeights = (name: string, folder: string, files: FolderSnapshot): WeightsCheck => {
    const last = unreadable.get(name);
    if (last && sameSnapshot(last.files, files)) return { ok: false, problem: last.problem };
    const check = checkCheckpointWeights(folder);
    if (check.ok) unreadable.delete(name);
    else unreadable.set(name, { files, problem: `${check.problem} (read again when its files change)` });
    return check.ok ? check : { ok: false, problem: unreadable.get(name)!.problem };
  };
  const sleep = plan.sleep ?? sleepFor;
  let lastBusy = Date.now();
  let lastLine = '';
  const report = () => {
    const status = queue.status();
    const key = JSON.stringify(status);
    if (key !== lastLine) {
      lastLine = key;
      plan.onStatus(status);
    }
  };

  /** One look at the folder; whether any checkpoint folder appeared, changed or went. */
  const poll = (): boolean => {
    let changed = false;
    const present = new Map<string, Readiness>();
    for (const name of candidateFolders(plan.dir)) {
      const folder = path.join(plan.dir, name);
      const current = snapshotFolder(folder);
      if (!current) continue;
      const previous = snapshots.get(name);
      const known = queue.settled(name) || (!previous && plan.auditedBefore?.(name) === true);
      const now: Readiness = known ? { state: 'ready' } : readiness(previous, current, () => checkWeights(name, folder, current));
      if (now.state !== 'not-a-checkpoint' && (!previous || !sameSnapshot(previous, current))) changed = true;
      present.set(name, now);
      snapshots.set(name, current);
    }
    for (const name of [...snapshots.keys()]) {
      if (present.has(name)) continue;
      snapshots.delete(name);
      unreadable.delete(name);
      changed = true;
    }
    queue.observe(present);
    return changed;
  };

  for (;;) {
    if (plan.signal.aborted) return { ended: 'interrupted', status: queue.status() };
    if (plan.maxCheckpoints !== undefined && queue.done().length >= plan.maxCheckpoints) return { ended: 'enough', status: queue.status() };
    const changed = poll();
    const name = queue.next();
    // Idle: nothing to audit and no checkpoint folder changing (one that stays unreadable does not keep the watch up).
    if (changed || name !== undefined) lastBusy = Date.now();
    if (name === undefined) {
      report();
      if (plan.untilIdleMs !== undefined && !changed && Date.now() - lastBusy >= plan.untilIdleMs) return { ended: 'idle', status: queue.status() };
      await sleep(plan.pollMs, plan.signal);
      continue;
    }
    queue.start(name);
    report();
    const dir = path.join(plan.dir, name);
    let outcome: 'done' | 'stopped';
    try {
      outcome = await plan.audit({ name, dir }, plan.signal);
    } catch (err) {
      const gone = checkpointGoneWhy(dir);
      if (gone !== undefined) queue.skip(name, gone);
      // One checkpoint that cannot be audited (no tokenizer files, config and weights that disagree,
      // a checkpoint rewritten after its audit) is skipped and named; the watch goes on. Settings
      // that differ from the earlier watch's are every checkpoint's: they stop the watch with the
      // whole message (VS Code offers a new folder or the earlier settings). A full or read-only
      // disk, or a bug, still stops it.
      else if (err instanceof ResumeRefused && !err.onlyModelChanged) throw err;
      else if (err instanceof InputError && !isStorageError(err)) queue.fail(name, `cannot be audited: ${oneLine(err.message)}`);
      else throw err;
      report();
      continue;
    }
    if (outcome === 'stopped') {
      queue.requeue(name);
      return { ended: 'interrupted', status: queue.status() };
    }
    queue.finish(name);
    lastBusy = Date.now();
    report();
    await plan.onDone(queue.done());
  }
}

/** A message on one status line, cut to a readable length. */
function oneLine(message: string): string {
  const line = message.replace(/\s*\n\s*/g, ' ');
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
