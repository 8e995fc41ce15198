/**
 * The divergence point of a failure-set question: the first generated position where the deployed
 * output and a correct probe attempt differ. Of several correct attempts the one that stays with
 * the deployed output longest is compared, so the account is of the latest, most local, decision
 * that sends the deployment off the correct path (ties: the first in probe and attempt order).
 */

/** A generated token sequence and where it came from. */
export interface TokenPath {
  probe: string;
  attempt: number;
  tokens: readonly number[];
}

/** Index of the first position where a and b differ; the shorter length when one is a prefix of the other; -1 when equal. */
export function firstDifference(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

export interface Divergence {
  path: TokenPath;
  position: number;
}

/** The correct path that diverges latest from the deployed tokens; null when none differs from them. */
export function divergencePoint(deployed: readonly number[], correct: readonly TokenPath[]): Divergence | null {
  let best: Divergence | null = null;
  for (const path of correct) {
    const position = firstDifference(deployed, path.tokens);
    if (position < 0) continue;
    if (!best || position > best.position) best = { path, position };
  }
  return best;
}
