/** How the panel writes numbers: counts, percentages and intervals. DOM-free. */

/** `[38.0–46.3]` in percent. */
export function intervalText(low: number | undefined, high: number | undefined): string {
  if (low === undefined || high === undefined || !Number.isFinite(low) || !Number.isFinite(high)) return '';
  return `[${(low * 100).toFixed(1)}–${(high * 100).toFixed(1)}]`;
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}
