/**
 * Whether the panel's header offers Resume for what it shows: a run (or either run of a
 * comparison) that stopped before its end — cancelled, failed, or cut by a window reload — and is
 * not going now. An imported log (no audit ran) and a folder without a manifest (it never
 * started) have nothing to resume. No vscode import.
 */
import type { ResumeOffer, RunStatus } from '../../contract';

export interface ResumeSide {
  /** Its folder's name, for the header's sentence. */
  name: string;
  /** manifest.json is there (the audit started). */
  started: boolean;
  /** summary.json is there (the audit finished). */
  finished: boolean;
  /** Imported from a harness log: no audit ran. */
  imported: boolean;
  /** Questions it holds. */
  records: number;
}

const questions = (n: number) => `${n} question${n === 1 ? '' : 's'}`;

/** The offer, or undefined when the header offers no Resume. `status`: the panel's status line, when it has one. */
export function resumeOffer(shown: { run: ResumeSide; base?: ResumeSide; status?: RunStatus }): ResumeOffer | undefined {
  if (shown.status === 'running') return undefined;
  const sides = shown.base ? [shown.base, shown.run] : [shown.run];
  if (sides.some((s) => s.imported || !s.started)) return undefined;
  const unfinished = sides.filter((s) => !s.finished);
  if (unfinished.length === 0) return undefined;
  const comparison = shown.base !== undefined;
  // A cancelled or failed run's status line says it stopped; a run cut by a reload has none.
  if (shown.status === 'cancelled' || shown.status === 'failed') return { comparison };
  const note = comparison
    ? `The comparison stopped before its end (${unfinished.map((s) => `${s.name}: ${questions(s.records)} kept`).join('; ')}).`
    : `Stopped before its end · ${questions(shown.run.records)} kept.`;
  return { comparison, note };
}
