/**
 * One paired yes/no measure on the same questions under two conditions (base → tuned checkpoint;
 * deployed → with a block silenced): the two shares, the difference with Newcombe's paired score
 * interval, the exact McNemar p, and the four-way decision against the margin.
 */
import type { PairedDelta } from '../../contract';
import { mcnemarExact } from './mcnemar';
import { pairedScoreInterval } from './pairedScoreInterval';
import { pairedDecision } from './pairedDecision';

/** tuned − base over paired yes/no outcomes, decided on its own exact McNemar p (a table re-decides on Holm's: evidenceOf). */
export function pairedDelta(base: readonly boolean[], tuned: readonly boolean[], margin: number): PairedDelta {
  let lost = 0;
  let gained = 0;
  let both = 0;
  base.forEach((x, i) => {
    if (x && !tuned[i]) lost++;
    else if (!x && tuned[i]) gained++;
    else if (x) both++;
  });
  const n = base.length;
  const ci = pairedScoreInterval({ both, onlyFirst: gained, onlySecond: lost, neither: n - both - lost - gained });
  const mcnemarP = mcnemarExact(lost, gained);
  const delta = n === 0 ? 0 : (gained - lost) / n;
  const decision = pairedDecision({ estimate: delta, lo: ci.lo, hi: ci.hi, p: mcnemarP, n, discordant: lost + gained }, margin);
  return { base: n === 0 ? 0 : (both + lost) / n, tuned: n === 0 ? 0 : (both + gained) / n, delta, ci, ciMethod: 'newcombe-score', decision, mcnemarP, lost, gained, n };
}

