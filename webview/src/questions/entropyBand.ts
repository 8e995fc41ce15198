/**
 * The entropy scale the detail pane shades tokens by: fixed bands in nats, so one shade means the
 * same across questions and runs (a per-output scale would make a confident output look uncertain).
 */
export const ENTROPY_BANDS: readonly { below: number; label: string }[] = [
  { below: 0.1, label: '< 0.1' },
  { below: 0.5, label: '0.1–0.5' },
  { below: 1, label: '0.5–1' },
  { below: 2, label: '1–2' },
  { below: Infinity, label: '≥ 2' },
];

/** The band index (0 = near certain) of an entropy in nats; a missing value reads as the lowest. */
export function entropyBand(entropy: number): number {
  if (!Number.isFinite(entropy) || entropy < 0) return entropy === Infinity ? ENTROPY_BANDS.length - 1 : 0;
  return ENTROPY_BANDS.findIndex((b) => entropy < b.below);
}
