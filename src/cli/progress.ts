/**
 * Audit progress on stderr: questions done, generated tokens/s and the time left once measured. On a terminal one
 * line is rewritten in place; otherwise a line is printed at most every few seconds, so logs stay short.
 */
import type { AuditProgress } from '../audit/run/runFolderAudit';
import { estimateText, formatDuration, type AuditEstimate } from '../audit/run/auditEstimate';
import { writeControl } from './terminalText';

export { formatDuration };

/** The plan before the first question, and its measured estimate; Ctrl-C stops the run. */
export function estimateLines(label: string, e: AuditEstimate): string[] {
  const t = estimateText(e);
  return [`${label}: plan: ${t.plan}`, `${label}: estimate: ${t.cost}; Ctrl-C stops and keeps finished questions`];
}

/** Questions done, generated tokens/s, and the time left only once it has been measured. */
export function progressLine(label: string, p: AuditProgress): string {
  const pct = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100;
  const speed = p.tokensPerSecond !== undefined ? `${p.tokensPerSecond.toFixed(1)} tokens/s` : '— tokens/s';
  const eta = p.remainingMs !== undefined ? `${formatDuration(p.remainingMs)} left` : 'time left not measured yet';
  return `${label}: ${p.done}/${p.total} questions (${pct}%) · ${speed} · ${eta} · ${formatDuration(p.elapsedMs)} elapsed`;
}

export function progressReporter(label: string): { update(p: AuditProgress): void; done(): void } {
  const tty = process.stderr.isTTY === true;
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
    } else if (p.done !== lastDone && (now - lastPrinted > 5000 || p.done === p.total || lastDone < 0)) {
      process.stderr.write(`${line}\n`);
      lastPrinted = now;
      lastDone = p.done;
    }
  }
}
