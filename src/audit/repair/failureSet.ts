/**
 * The failure set F of docs/design/repair-and-mechanism.md: questions reachable under the reference probe(s) but not
 * realized. Membership is a function of one question's probe results only, so it is fixed (and
 * written to the run's failure-set.jsonl) before any repair generation for that question runs.
 */

/** Reachable under at least one of the reference probes, and not realized. */
export function inFailureSet(realizedCorrect: boolean, reachable: Readonly<Record<string, boolean>>, referenceProbes: readonly string[]): boolean {
  return !realizedCorrect && referenceProbes.some((p) => reachable[p] === true);
}
