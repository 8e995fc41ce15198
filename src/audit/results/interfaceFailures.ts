/**
 * Interface failures of an imported run (docs/design/data-in-data-out.md, "Imported logs"): per harness reading (an
 * lm-eval filter such as strict-match), the questions it scored wrong while Reach Audit's rules find
 * the gold answer in the same output, and the reverse. Both are counted over the questions the
 * reading scored (a Wilson interval on each share), with their ids and both extractions.
 */
import { harnessDisagreement, rateOf, type InterfaceFailures, type QuestionRecord } from '../../contract';

/** One question where the harness and our rules disagree on the same output. */
function disagreement(r: QuestionRecord, reading: string): InterfaceFailures[string]['missed'][number] {
  return { id: r.id, harness: r.harness!.readings[reading].extracted, ours: r.realized.answer };
}

/** Per reading, the disagreements with our verdict on the deployed output; undefined for a run with no harness readings (an audit). */
export function interfaceFailures(records: readonly QuestionRecord[]): InterfaceFailures | undefined {
  const graded = records.filter((r) => !r.skipped && r.harness);
  if (graded.length === 0) return undefined;
  const readings = [...new Set(graded.flatMap((r) => Object.keys(r.harness!.readings)))];
  const out: InterfaceFailures = {};
  for (const reading of readings) {
    const scored = graded.filter((r) => r.harness!.readings[reading]?.correct != null);
    if (scored.length === 0) continue;
    const harnessWrong = scored.filter((r) => r.harness!.readings[reading].correct === false);
    const missed = scored.filter((r) => harnessDisagreement(r, reading) === 'missed');
    const reverse = scored.filter((r) => harnessDisagreement(r, reading) === 'reverse');
    out[reading] = {
      n: scored.length,
      missedRate: rateOf(missed.length, harnessWrong.length),
      reverseRate: rateOf(reverse.length, scored.length - harnessWrong.length),
      missed: missed.map((r) => disagreement(r, reading)),
      reverse: reverse.map((r) => disagreement(r, reading)),
    };
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
