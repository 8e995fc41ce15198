import type { Rate } from './interval';
import type { RepairSummary } from './runSummary';

/**
 * The identified block's damage (realized questions its silencing breaks), read from its row of
 * byBlock: the one place every headline (the Runs view, the Audit side view, the panel) takes it
 * from. Undefined without an identified block, or when no realized question was scanned.
 */
export function identifiedBlockDamage(repair: Pick<RepairSummary, 'identifiedBlock' | 'byBlock'>): Rate | undefined {
  if (repair.identifiedBlock === null) return undefined;
  const damage = (repair.byBlock ?? []).find((b) => b.block === repair.identifiedBlock)?.damage;
  return damage && damage.n > 0 ? damage : undefined;
}
