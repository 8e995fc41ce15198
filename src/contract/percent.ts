/** How rates read everywhere (CLI text, HTML report, Runs view, panel): one decimal, a dash when there is no number. */

/** The dash shown where a rate is missing (null, undefined, NaN). */
export const NO_RATE = '—';

/** 0.4251 → "42.5%"; null, undefined or a non-finite number → "—". */
export function formatPercent(rate: number | null | undefined, digits = 1): string {
  return typeof rate === 'number' && Number.isFinite(rate) ? `${(rate * 100).toFixed(digits)}%` : NO_RATE;
}
