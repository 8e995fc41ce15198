/**
 * The repair card's sentences about the identified block against a block chosen without looking
 * (summary.json's `repair.null`, design "Repair null"): the random-block rate on the same held-out
 * questions, identified − random with its exact p, the held-out rate split by a truncated
 * deployment, and the block's net effect. The summary crosses postMessage from a file, so a part
 * that is not there, or not numbers, leaves the sentences out. DOM-free.
 */
import { formatPercent as percent, MIN_BOOTSTRAP_QUESTIONS, storedVerdictText, type RepairNull } from '../../../src/contract';
import { pValueClause, signedPoints } from '../comparison/comparisonModel';
import { count } from '../common/numberText';

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isRate = (r: unknown): r is { successes: number; n: number } => typeof r === 'object' && r !== null && finite((r as { n?: unknown }).n) && finite((r as { successes?: unknown }).successes);

export function repairNullSentences(block: number | null | undefined, value: RepairNull | undefined): string[] {
  if (!value || typeof value !== 'object' || !finite(value.n) || !finite(value.randomBlock?.rate) || !finite(value.difference?.estimate) || !finite(value.pValue)) return [];
  const out = [
    `Against a block drawn at random per question, on the same ${count(value.n)} held-out questions: ${percent(value.randomBlock.rate)}${finite(value.randomBlock.lo) && finite(value.randomBlock.hi) ? ` [${percent(value.randomBlock.lo)}–${percent(value.randomBlock.hi)}] (percentile bootstrap)` : ''} (median block ${percent(value.medianBlock)}); identified − random ${signedPoints(value.difference.estimate)}${finite(value.difference.lo) && finite(value.difference.hi) ? ` [${signedPoints(value.difference.lo)}, ${signedPoints(value.difference.hi)}] (percentile bootstrap)` : ` (no bootstrap interval below ${MIN_BOOTSTRAP_QUESTIONS} questions)`}, exact one-sided (Poisson-binomial) ${pValueClause(value.pValue)}.`,
  ];
  const t = value.byTruncation;
  if (t && isRate(t.truncated) && isRate(t.notTruncated)) {
    out.push(`Held-out repair where the deployed output hit the token limit: ${count(t.truncated.successes)} of ${count(t.truncated.n)}; where it did not: ${count(t.notTruncated.successes)} of ${count(t.notTruncated.n)}.`);
  }
  const e = value.netEffect;
  if (e && finite(e.delta) && finite(e.n) && finite(e.gained) && finite(e.lost)) {
    out.push(`Net effect of silencing block ${block ?? '—'} on the scanned questions (held-out failure set and every realized question, n = ${count(e.n)}): ${count(e.gained)} repaired, ${count(e.lost)} broken, ${signedPoints(e.delta)} · ${storedVerdictText(e.decision)}.`);
  }
  return out;
}
