/**
 * Re-grading a finished run's stored outputs under the current grading rules (and possibly other
 * grading settings): every stored output — the deployment's, each probe attempt's, the global
 * route pool's — is graded again with the same function the audit uses, and what depends on the
 * verdicts (reachable, the blind selections) is recomputed. The repair scan stores answers, not
 * outputs, so its verdicts are kept as they were graded.
 */
import { grade, normalizeAnswer, type GradingSettings } from '../answers/grade';
import { selectConfidence, selectMajority } from '../probes/blindSelectors';
import type { Question } from '../dataset/question';
import type { Attempt, BlindChoice, GradedOutput, QuestionRecord } from '../../contract';

export interface RegradeCounts {
  /** Outputs graded again. */
  outputs: number;
  /** Outputs whose verdict changed. */
  changed: number;
  /** Questions whose realized verdict changed. */
  realized: number;
  /** Per probe: questions whose reachable verdict changed. */
  reachable: Record<string, number>;
}

function regraded<T extends GradedOutput>(o: T, q: Question, grading: GradingSettings, counts: RegradeCounts): T {
  const g = grade(o.output, q, { truncated: o.truncated, grading });
  counts.outputs++;
  if (g.correct !== o.correct) counts.changed++;
  return { ...o, answer: g.answer, correct: g.correct, rule: g.rule, strict: g.strict, flexible: g.flexible };
}

/** One record graded again; `q` is its question from the run's dataset (for the choices). */
export function regradeRecord(r: QuestionRecord, q: Question, grading: GradingSettings, counts: RegradeCounts): QuestionRecord {
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
  if (r.globalRoutes) out.globalRoutes = { ...r.globalRoutes, attempts: r.globalRoutes.attempts.map((a) => regraded(a, q, grading, counts)) };
  return out;
}

export function emptyRegradeCounts(): RegradeCounts {
  return { outputs: 0, changed: 0, realized: 0, reachable: {} };
}
