/**
 * One colour per probe in every chart, the panel's Charts tab and the Tables page's trajectory
 * alike: a probe's series colour comes from its name alone, never from its position in one chart's
 * list (the routes-vs-search chart once gave routes the colour pass@k gives sample, and the
 * trajectory coloured probes by their order in the run). DOM-free.
 */
import { PROBE_NAMES } from '../../../src/contract';

/** The series index of `probe`: the known probes first, in their fixed order; any other by its name. */
export function probeColorIndex(probe: string, seriesLength = 6): number {
  const known = (PROBE_NAMES as readonly string[]).indexOf(probe);
  if (known >= 0) return known;
  // A name the contract does not know yet: a stable pick among the colours after the known ones.
  let hash = 0;
  for (const c of probe) hash = (hash * 31 + c.codePointAt(0)!) >>> 0;
  const others = Math.max(1, seriesLength - PROBE_NAMES.length);
  return PROBE_NAMES.length + (hash % others);
}

/** The colour of `probe` among the theme's chart series colours. */
export function probeColor(probe: string, series: readonly string[]): string {
  return series[probeColorIndex(probe, series.length) % series.length];
}
