/**
 * `--margin PTS`: the equivalence margin of the paired decisions (compare, table, trajectory), in
 * percentage points on the command line and as a proportion inside.
 */
import { UsageError } from './command';
import { DEFAULT_MARGIN } from '../audit/stats';

export const MARGIN_FLAG = { margin: { type: 'string' } } as const;

export const MARGIN_HELP = `  --margin PTS             equivalence margin of the verdicts in percentage points (default ${100 * DEFAULT_MARGIN}): a paired difference is "equivalent" only when its 95% interval lies inside ±PTS (two one-sided tests, each at 2.5%)`;

export function parseMargin(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MARGIN;
  const points = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(points) || points <= 0 || points >= 100) throw new UsageError(`--margin: expected percentage points in (0, 100), like 5, got '${value}'`);
  return points / 100;
}
