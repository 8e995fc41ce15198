/**
 * The run-level reading of mechanism.jsonl beside the repair scan: how often each block is the
 * suppressor over the failure set, and whether the suppressor agrees with the blocks whose silenced
 * MLP repairs each question, and is the scan's identified block on the questions that block repairs,
 * more often than the same suppressors shuffled across the questions would (agreementNull.ts; Wilson
 * interval on the share). A uniformly random block is not the null: suppressors and repairs both
 * lean to late blocks, and that alone agrees more often than 1/L.
 */
import { rateOf, type MechanismAgreement, type MechanismRecord, type MechanismSummary, type QuestionRecord, type RunManifest } from '../../contract';
import { inFailureSet } from '../repair';
import { analyzeRepair } from '../repair';
import { hypergeometricUpperTail, repairingPermutationNull, type PermutationNull } from './agreementNull';

function agreement(n: number, agree: number, nullOf: PermutationNull): MechanismAgreement {
  const r = rateOf(agree, n);
  return { n, agree, rate: r.rate, ci: r.ci, chanceExpected: nullOf.expected, p: nullOf.p, permutations: nullOf.permutations };
}

/** The blocks whose silenced MLP makes the question come out right in the repair scan. */
export function repairingBlocks(record: QuestionRecord | undefined): { repairing: number[]; scanned: number } {
  const scan = record?.repair?.correctBySilencedBlock ?? {};
  const keys = Object.keys(scan);
  return { repairing: keys.filter((k) => scan[k]).map(Number).sort((a, b) => a - b), scanned: keys.length };
}

export function summarizeMechanism(input: {
  numBlocks: number;
  failureSetSize: number;
  accounts: readonly MechanismRecord[];
  records: readonly QuestionRecord[];
  identifiedBlock: number | null;
}): MechanismSummary {
  const L = input.numBlocks;
  const explained = input.accounts.filter((a) => !a.skipped && a.blocks);
  const counts = new Array<number>(L).fill(0);
  for (const a of explained) if (a.suppressor !== null && a.suppressor !== undefined) counts[a.suppressor]++;
  const withSuppressor = explained.filter((a) => a.suppressor !== null && a.suppressor !== undefined);
  const byId = new Map(input.records.map((r) => [r.id, r]));
  const summary: MechanismSummary = {
    numBlocks: L,
    failureSetSize: input.failureSetSize,
    explained: explained.length,
    skipped: input.accounts.length - explained.length,
    suppressorCounts: counts,
    noSuppressor: explained.length - withSuppressor.length,
    topIsDeployed: explained.length === 0 ? 0 : explained.filter((a) => a.top?.id === a.deployed?.id).length / explained.length,
    identifiedBlock: input.identifiedBlock,
  };
  const scanned = withSuppressor.map((a) => ({ suppressor: a.suppressor as number, ...repairingBlocks(byId.get(a.id)) })).filter((q) => q.scanned > 0);
  const b = input.identifiedBlock;
  if (b !== null && scanned.length > 0) {
    // Of the questions the identified block repairs, how many have it as their suppressor; shuffling
    // the suppressors across the scanned questions makes that count hypergeometric (exact).
    const repairedByB = scanned.filter((q) => q.repairing.includes(b));
    const marked = scanned.filter((q) => q.suppressor === b).length;
    const agree = repairedByB.filter((q) => q.suppressor === b).length;
    if (repairedByB.length > 0) {
      const expected = (repairedByB.length * marked) / scanned.length;
      summary.withIdentified = agreement(repairedByB.length, agree, { expected, p: hypergeometricUpperTail(scanned.length, marked, repairedByB.length, agree), permutations: 'exact' });
    }
  }
  const repairs = scanned.filter((q) => q.repairing.length > 0);
  if (repairs.length > 0) {
    const agree = repairs.filter((q) => q.repairing.includes(q.suppressor)).length;
    summary.withRepairing = agreement(repairs.length, agree, repairingPermutationNull(repairs.map((q) => q.suppressor), repairs.map((q) => q.repairing)));
  }
  return summary;
}

/** The failure set as the run defines it: the repair scan's membership, else the reference probes' (all probes when none is named). */
export function failureSetOf(records: readonly QuestionRecord[], manifest: Pick<RunManifest, 'repair'>): QuestionRecord[] {
  return records.filter((r) => {
    if (r.skipped) return false;
    if (r.repair) return r.repair.inFailureSet;
    const reference = manifest.repair.referenceProbes.length > 0 ? manifest.repair.referenceProbes : Object.keys(r.reachable);
    return inFailureSet(r.realized.correct, r.reachable, reference);
  });
}

/** The run-level summary of the accounts beside the run's repair scan. */
export function summarizeRun(manifest: Pick<RunManifest, 'model' | 'repair'>, records: readonly QuestionRecord[], accounts: readonly MechanismRecord[]): MechanismSummary {
  return summarizeMechanism({
    numBlocks: manifest.model.numBlocks,
    failureSetSize: failureSetOf(records, manifest).length,
    accounts,
    records,
    identifiedBlock: analyzeRepair(records)?.identifiedBlock ?? null,
  });
}
