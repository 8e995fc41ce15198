/**
 * The process's peak resident memory, for the benchmarks' memory figures: Linux keeps the mark
 * (VmHWM) and lets it be reset, so a figure can cover only what follows the reset.
 */
import * as fs from 'node:fs';

/** Linux: resets the peak-RSS mark (VmHWM) so the figure covers only what follows. */
export function resetPeakRss(): boolean {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** Peak RSS in bytes since the last reset (VmHWM), or since process start. */
export function peakRss(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}
