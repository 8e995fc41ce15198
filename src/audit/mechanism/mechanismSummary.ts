/**
 * The run-level reading of mechanism.jsonl beside the repair scan: how often each block is the
 * suppressor over the failure set, and whether the suppressor agrees with the scan's identified
 * block and with the blocks whose silenced MLP repairs each question — more often than a block
 * drawn uniformly at random would (exact binomial / Poisson-binomial upper tail, Wilson interval).
 */
import { rateOf, type MechanismAgreement, type MechanismRecord, type MechanismSummary, type QuestionRecord, type RunManifest } from '../../contract';
import { poissonBinomialUpperTail } from '../results';
import { inFailureSet } from '../repair';
import { analyzeRepair } from '../repair';

function agreement(pairs: readonly { agree: boolean; chance: number }[]): MechanismAgreement {
  const agree = pairs.filter((p) => p.agree).length;
  const r = rateOf(agree, pairs.length);
  return {
    n: pairs.length,
    agree,
    rate: r.rate,
    ci: r.ci,
    chanceExpected: pairs.reduce((s, p) => s + p.chance, 0),
    p: poissonBinomialUpperTail(pairs.map((p) => p.chance), agree),
  };
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
  if (input.identifiedBlock !== null && withSuppressor.length > 0) {
    summary.withIdentified = agreement(withSuppressor.map((a) => ({ agree: a.suppressor === input.identifiedBlock, chance: 1 / L })));
  }
  const repairPairs: { agree: boolean; chance: number }[] = [];
  for (const a of withSuppressor) {
    const { repairing, scanned } = repairingBlocks(byId.get(a.id));
    if (repairing.length === 0 || scanned === 0) continue;
    repairPairs.push({ agree: repairing.includes(a.suppressor as number), chance: repairing.length / scanned });
  }
  if (repairPairs.length > 0) summary.withRepairing = agreement(repairPairs);
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
