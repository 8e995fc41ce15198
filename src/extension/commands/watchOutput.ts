/**
 * Reads what `reach-audit trajectory --watch` writes on stderr, line by line, for Watch Training
 * Run: the status line, and the trajectory.json it has just rewritten (a checkpoint finished).
 * Everything else (the audits' own progress) goes to the output channel only. No vscode import.
 */

export type WatchOutput =
  | { kind: 'status'; line: string }
  | { kind: 'trajectory'; file: string }
  /** Where the watch writes, said once at the start: an earlier watch's trajectory.json may be there. */
  | { kind: 'watching'; out: string };

const STATUS = /^reach-audit: watch: (.+)$/;
const TRAJECTORY = /^reach-audit: trajectory (.+\.json)$/;
const WATCHING = /^reach-audit: watching .+; trajectory in (.+)$/;

export function parseWatchOutput(line: string): WatchOutput | undefined {
  const text = line.replace(/\r$/, '');
  let m = STATUS.exec(text);
  if (m) return { kind: 'status', line: m[1] };
  m = TRAJECTORY.exec(text);
  if (m) return { kind: 'trajectory', file: m[1] };
  m = WATCHING.exec(text);
  if (m) return { kind: 'watching', out: m[1] };
  return undefined;
}
