/**
 * The repair analysis of docs/design/repair-and-mechanism.md, from the records of a repair scan: per-block repair of
 * the failure set F and damage to realized questions, the identified block l* chosen on a seeded
 * selection half of F, and its repair rate on the other half (Wilson interval) with its damage rate.
 */
import { rateOf, type BlockRepair, type QuestionRecord, type RepairSummary } from '../../contract';
import { splitBySeededKey } from './seededSplit';
import { repairNull } from './repairNull';

function blocksOf(records: readonly QuestionRecord[]): number[] {
  const blocks = new Set<number>();
  for (const r of records) for (const key of Object.keys(r.repair?.correctBySilencedBlock ?? {})) blocks.add(Number(key));
  return [...blocks].sort((a, b) => a - b);
}

function correctUnder(r: QuestionRecord, block: number): boolean {
  return r.repair?.correctBySilencedBlock[String(block)] === true;
}

/** The membership the scan was measured for: as audited, or as it was before a regrade. */
function scannedAs(r: QuestionRecord): { inFailureSet: boolean; realized: boolean } {
  return r.repair!.scannedAs ?? { inFailureSet: r.repair!.inFailureSet, realized: r.realized.correct };
}

/** After a regrade: the failure set of the new verdicts against the one the scan measured. */
function staleness(scanned: readonly QuestionRecord[]): RepairSummary['stale'] {
  if (!scanned.some((r) => r.repair!.scannedAs)) return undefined;
  const now = scanned.filter((r) => r.repair!.inFailureSet);
  return {
    failureSetSize: now.length,
    joined: now.filter((r) => !scannedAs(r).inFailureSet).length,
    left: scanned.filter((r) => scannedAs(r).inFailureSet && !r.repair!.inFailureSet).length,
  };
}

/** Undefined when no record has a repair scan. Reads the scan for the membership it was measured for. */
export function analyzeRepair(records: readonly QuestionRecord[]): RepairSummary | undefined {
  const scanned = records.filter((r) => r.repair);
  if (scanned.length === 0) return undefined;
  const blocks = blocksOf(scanned);
  const failures = scanned.filter((r) => scannedAs(r).inFailureSet);
  const realized = scanned.filter((r) => scannedAs(r).realized);
  const { selection, heldOut } = splitBySeededKey(failures, (r) => ({ splitKey: r.repair!.splitKey, id: r.id }));

  const byBlock: BlockRepair[] = blocks.map((block) => ({
    block,
    repair: rateOf(failures.filter((r) => correctUnder(r, block)).length, failures.length),
    damage: rateOf(realized.filter((r) => !correctUnder(r, block)).length, realized.length),
    selectionRepair: rateOf(selection.filter((r) => correctUnder(r, block)).length, selection.length),
  }));

  // l*: most repairs on the selection half; ties to less damage, then the lower block.
  let best: BlockRepair | undefined;
  if (selection.length > 0) {
    for (const b of byBlock) {
      if (!best || b.selectionRepair.successes > best.selectionRepair.successes || (b.selectionRepair.successes === best.selectionRepair.successes && b.damage.successes < best.damage.successes)) best = b;
    }
  }
  const heldOutRate = best ? rateOf(heldOut.filter((r) => correctUnder(r, best.block)).length, heldOut.length) : rateOf(0, 0);
  const damage = best ? best.damage : rateOf(0, 0);
  const nullModel = best ? repairNull(heldOut, realized, blocks, best.block, correctUnder, (r) => scannedAs(r).realized) : undefined;
  const stale = staleness(scanned);
  return {
    failureSetSize: failures.length,
    failureSet: failures.map((r) => r.id),
    identifiedBlock: best ? best.block : null,
    repairRate: heldOutRate.n === 0 ? null : heldOutRate.rate,
    ci: heldOutRate.n === 0 ? null : heldOutRate.ci,
    n: heldOutRate.n,
    repaired: heldOutRate.successes,
    selectionSize: selection.length,
    damageRate: damage.n === 0 ? null : damage.rate,
    damageCi: damage.n === 0 ? null : damage.ci,
    damageN: damage.n,
    byBlock,
    ...(nullModel ? { null: nullModel } : {}),
    matrix: [...failures, ...realized].map((r) => ({ id: r.id, inFailureSet: scannedAs(r).inFailureSet, correct: blocks.map((b) => correctUnder(r, b)) })),
    ...(stale ? { stale } : {}),
  };
}
