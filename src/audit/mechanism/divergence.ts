/**
 * The divergence point of a failure-set question: the first generated position where the deployed
 * output and a correct probe attempt differ. Of several correct attempts the one that stays with
 * the deployed output longest is compared, so the account is of the latest, most local, decision
 * that sends the deployment off the correct path (ties: the first in probe and attempt order).
 */
import type { MechanismRecord, QuestionRecord } from '../../contract';

/** A generated token sequence and where it came from. */
export interface TokenPath {
  probe: string;
  attempt: number;
  tokens: readonly number[];
}

/** Index of the first position where a and b differ; the shorter length when one is a prefix of the other; -1 when equal. */
export function firstDifference(a: readonly number[], b: readonly number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

export interface Divergence {
  path: TokenPath;
  position: number;
}

/** The correct path that diverges latest from the deployed tokens; null when none differs from them. */
export function divergencePoint(deployed: readonly number[], correct: readonly TokenPath[]): Divergence | null {
  let best: Divergence | null = null;
  for (const path of correct) {
    const position = firstDifference(deployed, path.tokens);
    if (position < 0) continue;
    if (!best || position > best.position) best = { path, position };
  }
  return best;
}

/** The model's tokenizer as explain reads outputs with it. */
export interface OutputTokenizer {
  encodeText(text: string): number[];
  readonly eosIds: readonly number[];
}

/** Where a failure-set question's deployed output leaves its correct attempts, in tokens (or why nowhere): the part of an account that the record's outputs alone decide. */
export type QuestionDivergence = { skipped: NonNullable<MechanismRecord['skipped']> } | { probe: string; attempt: number; position: number; shared: number[]; d: number; g: number };

export function questionDivergence(model: OutputTokenizer, record: QuestionRecord): QuestionDivergence {
  const deployed = model.encodeText(record.realized.output);
  const correct: TokenPath[] = [];
  for (const probe of Object.keys(record.probes).sort()) {
    record.probes[probe].attempts.forEach((a, attempt) => {
      if (a.correct) correct.push({ probe, attempt, tokens: model.encodeText(a.output) });
    });
  }
  if (correct.length === 0) return { skipped: 'no-correct-attempt' };
  const point = divergencePoint(deployed, correct);
  if (!point) return { skipped: 'same-tokens' };
  const eos = model.eosIds[0];
  const d = deployed[point.position] ?? eos;
  const g = point.path.tokens[point.position] ?? eos;
  if (d === undefined || g === undefined) return { skipped: 'no-eos' };
  return { probe: point.path.probe, attempt: point.path.attempt, position: point.position, shared: deployed.slice(0, point.position), d, g };
}
