/**
 * A complete QuestionRecord for tests that care about a few fields: everything else is what the
 * audit writes for a question nobody got right, so the record passes the run-file schema.
 */
import type { Budget, QuestionRecord, RepairResult } from '../../src/contract';

const NO_COST: Budget = { generations: 0, tokens: 0, blockApplications: 0 };

export function testRecord(id: string, line: number, over: Partial<QuestionRecord> = {}): QuestionRecord {
  return {
    id,
    line,
    gold: '4',
    question: `q ${id}`,
    realized: { output: 'x', answer: '3', correct: false, truncated: false, rule: 'strict', logprob: -0.5, tokens: 1, cost: { ...NO_COST } },
    probes: {},
    reachable: {},
    blind: {},
    ...over,
  };
}

/** The realized part of a record, correct or not. */
export function deployed(correct: boolean, answer = correct ? '4' : '3'): QuestionRecord['realized'] {
  return { output: `#### ${answer}`, answer, correct, truncated: false, rule: 'strict', logprob: -0.5, tokens: 1, cost: { ...NO_COST } };
}

/** A repair scan result with the given correctness per silenced block. */
export function repairScan(inFailureSet: boolean, realized: boolean, correctBySilencedBlock: Record<string, boolean>): RepairResult {
  const answerBySilencedBlock = Object.fromEntries(Object.entries(correctBySilencedBlock).map(([b, ok]) => [b, ok ? '4' : '3']));
  return { inFailureSet, realized, correctBySilencedBlock, answerBySilencedBlock, splitKey: 0.5, cost: { ...NO_COST } };
}
