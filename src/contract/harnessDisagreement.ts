/**
 * Where an imported question's harness verdict and Reach Audit's disagree on the same deployed
 * output (an interface failure): `missed`, the harness scored wrong an output whose gold our rules
 * find; `reverse`, the harness scored right one our rules find wrong. Read by the summary and the
 * CSV export alike.
 */
import type { QuestionRecord } from './runRecord';

export type HarnessDisagreement = 'missed' | 'reverse';

/** null when they agree, or the reading did not give a 0/1 verdict for this question. */
export function harnessDisagreement(r: QuestionRecord, reading: string): HarnessDisagreement | null {
  const theirs = r.harness?.readings[reading]?.correct;
  if (theirs === undefined || theirs === null || theirs === r.realized.correct) return null;
  return theirs ? 'reverse' : 'missed';
}
