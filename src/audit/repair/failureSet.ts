/**
 * The failure set F of docs/design.md section 1: questions reachable under the reference probe(s) but not
 * realized. Membership is a function of one question's probe results only, so it is fixed (and
 * written to the run's failure-set.jsonl) before any repair generation for that question runs.
 */
import type { QuestionRecord } from '../run/record';

/** Reachable under at least one of the reference probes, and not realized. */
export function inFailureSet(realizedCorrect: boolean, reachable: Readonly<Record<string, boolean>>, referenceProbes: readonly string[]): boolean {
  return !realizedCorrect && referenceProbes.some((p) => reachable[p] === true);
}

/** The ids of F in a set of records (those whose repair scan marked them). */
export function failureSetIds(records: readonly QuestionRecord[]): string[] {
  return records.filter((r) => r.repair?.inFailureSet).map((r) => r.id);
}
