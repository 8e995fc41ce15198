/**
 * Audit progress on stderr: questions done, generated tokens/s and the time left once measured. On a terminal one
 * line is rewritten in place; otherwise a line is printed at most every few seconds, so logs stay short.
 */
import { type AuditProgress, estimateText, formatDuration, type AuditEstimate } from '../audit/runner';
import { writeControl } from './terminalText';
import { PROGRESS_LINES_ENV } from '../service';

export { formatDuration };

/** The plan before the first question, and its measured estimate; Ctrl-C stops the run. */
export function estimateLines(label: string, e: AuditEstimate): string[] {
  const t = estimateText(e);
  return [`${label}: plan: ${t.plan}`, `${label}: estimate: ${t.cost}; Ctrl-C stops and keeps finished questions`, ...(t.learnedRoute ? [`${label}: learned route: ${t.learnedRoute}`] : [])];
}

/** What a progress line shows. */
export type ProgressFigures = Pick<AuditProgress, 'done' | 'total' | 'tokensPerSecond' | 'remainingMs' | 'elapsedMs'> &
  Partial<Pick<AuditProgress, 'generatedTokens' | 'engineTokens' | 'remainingLeastMs' | 'remainingBasis' | 'remainingRepairMostMs'>>;

/** "3m10s–4m02s left (from …)", or one duration when the range's ends read the same. */
function leftText(p: ProgressFigures): string {
  if (p.remainingMs === undefined) return 'time left not measured yet';
  const most = formatDuration(p.remainingMs);
  const least = p.remainingLeastMs !== undefined ? formatDuration(p.remainingLeastMs) : most;
  const repair = p.remainingRepairMostMs !== undefined && p.remainingRepairMostMs > 0 ? ` (+ up to ${formatDuration(p.remainingRepairMostMs)} if the repair scan runs on the open questions)` : '';
  return `${least === most ? most : `${least}–${most}`} left${repair}${p.remainingBasis ? ` (from ${p.remainingBasis})` : ''}`;
}

/** Tokens generated so far: the engine's live count when it has one, else the returned generations'. */
function tokensText(p: ProgressFigures): string {
  const n = p.engineTokens ?? p.generatedTokens;
  return n === undefined ? '' : ` · ${n.toLocaleString('en-US')} tokens`;
}

/** Whole percent of the questions done (100 when there are none). */
function percentDone(p: ProgressFigures): number {
  return p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100;
}

/** Questions done, generated tokens/s, and the time left only once it has been measured. */
export function progressLine(label: string, p: ProgressFigures): string {
  const pct = percentDone(p);
  const speed = p.tokensPerSecond !== undefined ? `${p.tokensPerSecond.toFixed(1)} tokens/s` : '— tokens/s';
  const eta = leftText(p);
  return `${label}: ${p.done}/${p.total} questions (${pct}%)${tokensText(p)} · ${speed} · ${eta} · ${formatDuration(p.elapsedMs)} elapsed`;
}

/** Off a terminal, a line at least this often while no question finishes, so a log shows the engine working. */
const QUIET_LOG_MS = 15_000;

export function progressReporter(label: string): { update(p: AuditProgress): void; done(): void } {
  const tty = process.stderr.isTTY === true;
  // Off a terminal, a line per finished question for a reader that counts them (VS Code's Watch Training Run).
  const everyQuestion = process.env[PROGRESS_LINES_ENV] === 'every-question';
  let lastPrinted = 0;
  let lastDone = -1;
  let wroteInPlace = false;
  // A chunk's records arrive in one synchronous burst: print once, after the burst.
  let latest: AuditProgress | undefined;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (latest) show(latest);
  };
  return {
    update(p) {
      latest = p;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    done() {
      flush();
      if (tty && wroteInPlace) process.stderr.write('\n');
    },
  };

  function show(p: AuditProgress): void {
    const now = Date.now();
    const line = progressLine(label, p);
    if (tty) {
      writeControl(process.stderr, '\r\x1b[2K');
      process.stderr.write(line);
      wroteInPlace = true;
    } else if ((p.done !== lastDone && (everyQuestion || now - lastPrinted > 5000 || p.done === p.total || lastDone < 0)) || now - lastPrinted > QUIET_LOG_MS) {
      process.stderr.write(`${line}\n`);
      lastPrinted = now;
      lastDone = p.done;
    }
  }
}

/** The short form of one audit's progress, for a line that shows several side by side. */
export function shortProgress(label: string, p: ProgressFigures | { stage: string }): string {
  if ('stage' in p) return `${label} ${p.stage}`;
  const pct = percentDone(p);
  const tokens = p.engineTokens ?? p.generatedTokens;
  const speed = `${tokens !== undefined && tokens > 0 ? ` · ${tokens.toLocaleString('en-US')} tok` : ''}${p.tokensPerSecond !== undefined ? ` · ${p.tokensPerSecond.toFixed(0)} tok/s` : ''}`;
  const eta = p.remainingMs !== undefined ? ` · ${formatDuration(p.remainingMs)} left` : '';
  return `${label} ${p.done}/${p.total} (${pct}%)${speed}${eta}`;
}

/**
 * Progress of audits that run at the same time: on a terminal one line holds them all (cut to its
 * width); otherwise each audit's line is printed at most every few seconds, as for one audit.
 */
export function sideBySideProgress(labels: readonly string[]): {
  update(label: string, p: ProgressFigures | { stage: string }): void;
  /** A message line (an estimate, a warning) printed above the progress line. */
  note(text: string): void;
  done(): void;
} {
  const tty = process.stderr.isTTY === true;
  const latest = new Map<string, ProgressFigures | { stage: string }>();
  const printed = new Map<string, { at: number; done: number }>();
  let wroteInPlace = false;
  let scheduled = false;
  const render = () => {
    scheduled = false;
    const parts = labels.filter((l) => latest.has(l)).map((l) => shortProgress(l, latest.get(l)!));
    if (parts.length === 0) return;
    const width = Math.max(20, (process.stderr.columns ?? 120) - 1);
    const line = parts.join(' │ ');
    writeControl(process.stderr, '\r\x1b[2K');
    process.stderr.write(line.length > width ? `${line.slice(0, width - 1)}…` : line);
    wroteInPlace = true;
  };
  return {
    update(label, p) {
      latest.set(label, p);
      if (tty) {
        if (!scheduled) {
          scheduled = true;
          setImmediate(render);
        }
        return;
      }
      if ('stage' in p) return;
      const now = Date.now();
      const last = printed.get(label);
      if (!last || (p.done !== last.done && (now - last.at > 5000 || p.done === p.total)) || now - last.at > QUIET_LOG_MS) {
        process.stderr.write(`${progressLine(label, p)}\n`);
        printed.set(label, { at: now, done: p.done });
      }
    },
    note(text) {
      if (tty && wroteInPlace) writeControl(process.stderr, '\r\x1b[2K');
      process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
      if (tty && wroteInPlace) render();
    },
    done() {
      if (tty && scheduled) render();
      if (tty && wroteInPlace) process.stderr.write('\n');
      wroteInPlace = false;
    },
  };
}
