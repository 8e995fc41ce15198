/**
 * Reads what `reach-audit trajectory --watch` writes on stderr, line by line, for Watch Training
 * Run: the status line, the trajectory.json it has just rewritten (a checkpoint finished), and the
 * audit in progress: its estimate before the first question, then its questions done ("checkpoint-100:
 * 3/20 questions (15%) · … · 12s left · 2s elapsed"). The rest goes to the output channel only. No vscode import.
 */

export type WatchOutput =
  | { kind: 'status'; line: string }
  | { kind: 'trajectory'; file: string }
  /** Where the watch writes, said once at the start: an earlier watch's trajectory.json may be there. */
  | { kind: 'watching'; out: string }
  /** A checkpoint's audit: its plan's measured cost, before its first question. */
  | { kind: 'estimate'; checkpoint: string; text: string }
  /** A checkpoint's audit: questions done of its total, and the rest of the CLI's progress line. */
  | { kind: 'questions'; checkpoint: string; done: number; total: number; line: string };

const STATUS = /^reach-audit: watch: (.+)$/;
const TRAJECTORY = /^reach-audit: trajectory (.+\.json)$/;
const WATCHING = /^reach-audit: watching .+; trajectory in (.+)$/;
const ESTIMATE = /^([^\s:]+): estimate: (.+?)(; Ctrl-C stops and keeps finished questions)?$/;
const QUESTIONS = /^([^\s:]+): ((\d+)\/(\d+) questions .+)$/;

export function parseWatchOutput(line: string): WatchOutput | undefined {
  const text = line.replace(/\r$/, '');
  let m = STATUS.exec(text);
  if (m) return { kind: 'status', line: m[1] };
  m = TRAJECTORY.exec(text);
  if (m) return { kind: 'trajectory', file: m[1] };
  m = WATCHING.exec(text);
  if (m) return { kind: 'watching', out: m[1] };
  m = ESTIMATE.exec(text);
  if (m) return { kind: 'estimate', checkpoint: m[1], text: m[2] };
  m = QUESTIONS.exec(text);
  if (m) return { kind: 'questions', checkpoint: m[1], done: Number(m[3]), total: Number(m[4]), line: m[2] };
  return undefined;
}
