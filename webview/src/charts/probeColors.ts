/**
 * One colour per probe across the Charts tab: a probe's series colour comes from its name, not
 * from its position in one chart's list (the routes-vs-search chart, which draws only routes and
 * search, gave routes the colour pass@k gives sample). DOM-free.
 */
const KNOWN_PROBES = ['sample', 'routes', 'search'];

/** The series index of `probe`: the known probes first, in their fixed order, then others by name. */
export function probeColorIndex(probe: string, probes: readonly string[] = []): number {
  const known = KNOWN_PROBES.indexOf(probe);
  if (known >= 0) return known;
  const others = [...new Set(probes.filter((p) => !KNOWN_PROBES.includes(p)))].sort();
  const at = others.indexOf(probe);
  return KNOWN_PROBES.length + (at >= 0 ? at : others.length);
}

export function probeColor(probe: string, series: readonly string[], probes: readonly string[] = []): string {
  return series[probeColorIndex(probe, probes) % series.length];
}
