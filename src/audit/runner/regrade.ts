/**
 * Re-grading a finished run's stored outputs under the current grading rules (and possibly other
 * grading settings): every stored output — the deployment's, each probe attempt's, the global
 * route pool's — is graded again with the same function the audit uses, and what depends on the
 * verdicts (reachable, the blind selections, the failure set) is recomputed. The repair scan stores
 * answers, not outputs, and was run for the old failure set, so its verdicts are kept as they were
 * graded, with the membership they were measured for (`repair.scannedAs`): the scan is stale.
 * Depth-of-loss results are dropped (answers only, for the old failure set).
 */
import { grade, normalizeAnswer } from '../answers';
import { selectConfidence, selectMajority } from '../probes';
import { inFailureSet } from '../repair';
import type { Question } from '../dataset';
import type { Attempt, BlindChoice, GradedOutput, QuestionRecord, GradingSettings } from '../../contract';

export interface RegradeCounts {
  /** Outputs graded again. */
  outputs: number;
  /** Outputs whose verdict changed. */
  changed: number;
  /** Which part was read: outputs read after their finished thought, and outputs cut while thinking (nothing read). */
  read: { afterThought: number; unfinishedThought: number };
  /** Questions whose realized verdict changed. */
  realized: number;
  /** Per probe: questions whose reachable verdict changed. */
  reachable: Record<string, number>;
  /** Repair-scanned questions whose failure-set membership the new verdicts changed. */
  failureSet: { before: number; after: number; joined: number; left: number };
  /** Records whose repair scan is now stale (every record with a scan). */
  staleRepair: number;
}

function regraded<T extends GradedOutput>(o: T, q: Question, grading: GradingSettings, counts: RegradeCounts): T {
  const g = grade(o.output, q, { truncated: o.truncated, grading });
  counts.outputs++;
  if (g.correct !== o.correct) counts.changed++;
  if (g.thought === 'finished') counts.read.afterThought++;
  if (g.thought === 'unfinished') counts.read.unfinishedThought++;
  const out: T = { ...o, answer: g.answer, correct: g.correct, rule: g.rule, match: g.match, strict: g.strict, flexible: g.flexible, thought: g.thought };
  if (!g.match) delete out.match; // no answer: no comparison (and none left from the old grading)
  if (!g.thought) delete out.thought;
  return out;
}

/**
 * One record graded again; `q` is its question from the run's dataset (for the choices),
 * `referenceProbes` the run's repair reference probes (manifest `repair.referenceProbes`).
 */
export function regradeRecord(r: QuestionRecord, q: Question, grading: GradingSettings, counts: RegradeCounts, referenceProbes: readonly string[]): QuestionRecord {
  const out: QuestionRecord = { ...r, realized: regraded(r.realized, q, grading, counts), probes: {}, reachable: {}, blind: {} };
  if (out.realized.correct !== r.realized.correct) counts.realized++;
  for (const [p, res] of Object.entries(r.probes)) {
    const attempts: Attempt[] = res.attempts.map((a) => regraded(a, q, grading, counts));
    out.probes[p] = { ...res, attempts, correct: attempts.map((a) => a.correct) };
    out.reachable[p] = attempts.some((a) => a.correct);
    if (out.reachable[p] !== (r.reachable[p] === true)) counts.reachable[p] = (counts.reachable[p] ?? 0) + 1;
    const before = r.blind[p];
    if (before) {
      const blind: Record<string, BlindChoice> = {};
      if (before.majority) blind.majority = selectMajority(attempts, (ans) => normalizeAnswer(ans, q.format));
      if (before.confidence) blind.confidence = selectConfidence(attempts);
      out.blind[p] = blind;
    }
  }
  // Depth results keep answers, not outputs, for a failure set the new verdicts may change: they
  // cannot be graded again, so a regraded run has none (rerun with --depth-probe to measure them).
  delete out.depth;
  // The foreclosure window keeps only counts of its samples' verdicts, and narrows the depth bracket: it goes with it.
  delete out.foreclosure;
  if (r.globalRoutes) out.globalRoutes = { ...r.globalRoutes, attempts: r.globalRoutes.attempts.map((a) => regraded(a, q, grading, counts)) };
  if (r.repair) {
    // Regrading a regraded run keeps the membership of the scan itself, not of the last regrade.
    const scannedAs = r.repair.scannedAs ?? { inFailureSet: r.repair.inFailureSet, realized: r.repair.realized };
    const member = inFailureSet(out.realized.correct, out.reachable, referenceProbes);
    out.repair = { ...r.repair, inFailureSet: member, realized: out.realized.correct, scannedAs };
    counts.staleRepair++;
    if (scannedAs.inFailureSet) counts.failureSet.before++;
    if (member) counts.failureSet.after++;
    if (member && !scannedAs.inFailureSet) counts.failureSet.joined++;
    if (!member && scannedAs.inFailureSet) counts.failureSet.left++;
  }
  return out;
}

export function emptyRegradeCounts(): RegradeCounts {
  return { outputs: 0, changed: 0, read: { afterThought: 0, unfinishedThought: 0 }, realized: 0, reachable: {}, failureSet: { before: 0, after: 0, joined: 0, left: 0 }, staleRepair: 0 };
}
