/**
 * Watching a folder again after a settings change: the CLI refuses to resume the checkpoints it
 * audited before under other settings ("cannot resume FOLDER: it was made with different settings —"
 * then one line per difference). Watch Training Run reads the whole error back from those lines and
 * offers the two ways forward: watch into a new folder (the new settings), or keep the earlier
 * checkpoints' settings (the flags of the command that reproduces their audit). No vscode import.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SettingsConflict {
  /** The folder holding the earlier checkpoints' runs (the watch's --out). */
  out: string;
  /** What differs, one line each ("max new tokens: 32 before, 16 now", as the CLI says it). */
  problems: string[];
}

const RESUME = /^cannot resume (.+): it was made with different settings —$/;
const MIXED = /^the checkpoints in (.+) were audited with different settings —$/;

/** The conflict in the CLI's error (its lines without the `reach-audit: ` prefix), undefined for another error. */
export function settingsConflict(lines: readonly string[]): SettingsConflict | undefined {
  const first = lines[0]?.trim() ?? '';
  const resume = RESUME.exec(first);
  const mixed = MIXED.exec(first);
  const out = resume ? path.dirname(resume[1]) : mixed?.[1];
  if (!out) return undefined;
  const problems = lines.slice(1).filter((l) => /^\s+\S/.test(l)).map((l) => l.trim());
  return { out, problems };
}

/** The message shown: the whole conflict, on one line, and the two ways forward. */
export function conflictMessage(c: SettingsConflict): string {
  return `Reach Audit: the checkpoints already audited in ${c.out} were made with other settings than this watch's — ${c.problems.join('; ')}. Watch into a new folder with the new settings, or keep the earlier settings for this watch.`;
}

/** `<out>-2`, `<out>-3`, …: the first that does not exist yet. */
export function nextWatchFolder(out: string): string {
  for (let i = 2; ; i++) {
    const next = `${out}-${i}`;
    if (!fs.existsSync(next)) return next;
  }
}

/** A run folder of an earlier checkpoint in `out` (one with a manifest), undefined when none is. */
export function earlierCheckpointRun(out: string): string | undefined {
  if (!fs.existsSync(out)) return undefined;
  const folders = fs.readdirSync(out, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => path.join(out, e.name)).sort();
  return folders.find((f) => fs.existsSync(path.join(f, 'manifest.json')));
}

/**
 * The audit flags of a reproduce command line (`reach-audit audit --model M --data D … --name N`),
 * without the model, the data and the run's name: the watch gives those per checkpoint.
 */
export function auditFlagsOf(args: readonly string[]): string[] {
  const flags: string[] = [];
  for (let i = 2; i < args.length; i++) {
    if (args[i] === '--model' || args[i] === '--data' || args[i] === '--name') i++;
    else flags.push(args[i]);
  }
  return flags;
}
