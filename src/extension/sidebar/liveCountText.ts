/**
 * A live run's count as the Runs view's row and the Audit view say it: the same numbers as the
 * progress notification and the status bar. Pure (no vscode).
 */

export interface LiveCount {
  done: number;
  total: number;
}

/** "running · 18 / 30 questions", as the Runs view's row and the Audit view say it. */
export function liveCountText(count: LiveCount): string {
  return `running · ${count.done.toLocaleString('en-US')} / ${count.total.toLocaleString('en-US')} questions`;
}
