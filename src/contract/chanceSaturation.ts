/**
 * When chance saturates a choice-format rate (docs/design/statistics.md, "Chance"): a uniform guesser with the
 * same options and attempts reaches at least SATURATION_LEVEL of the questions, or the measured
 * rate is not above its chance level. The cross-run tables leave such a setting out of every
 * headline; the panel shows it as saturated instead of giving it a verdict.
 */
export const SATURATION_LEVEL = 0.95;

export function chanceSaturation(c: { level: number; aboveChance: boolean }): 'chance-reach' | 'not-above-chance' | null {
  if (c.level >= SATURATION_LEVEL) return 'chance-reach';
  return c.aboveChance ? null : 'not-above-chance';
}
