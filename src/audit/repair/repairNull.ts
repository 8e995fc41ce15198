/**
 * What the identified block's repair rate is measured against (docs/design/repair-and-mechanism.md, "Repair null"). The
 * failure set is selected for "some perturbation already found the answer", so silencing almost any
 * block may let many of its answers out; a repair rate means something only beside the rate of a
 * block chosen without looking. On the same held-out half of F:
 * - the random-block null: for each held-out question, the share of blocks whose silencing repairs
 *   it (a block drawn at random for that question repairs it with this probability); its mean is
 *   the null rate, and the median over blocks of their held-out rates is shown beside it;
 * - identified − null: the mean of per-question differences with a percentile-bootstrap interval
 *   (no closed form; none below MIN_BOOTSTRAP_QUESTIONS held-out questions, where the exact p
 *   stands alone), and the exact one-sided p of "the identified block repairs no more than a
 *   random block": P(X ≥ repaired), X the Poisson-binomial count of a random block per question;
 * - the same repair rate split by whether the deployed output was cut at the token limit (a
 *   truncated deployment can be "repaired" by any block that shortens the output);
 * - the identified block's net effect: deployed vs silenced correctness, paired, over the held-out
 *   failure set and every realized question (the questions the scan ran on, less those that chose
 *   the block).
 */
import { MIN_BOOTSTRAP_QUESTIONS, rateOf, type QuestionRecord, type RepairNull } from '../../contract';
import { median } from '../../common';
import { poissonBinomialUpperTail, bootstrapColumnMeans, seedFor, pairedDelta, DEFAULT_MARGIN } from '../stats';

/** `deployedCorrect`: the deployment's verdict the scan was measured for (after a regrade: the one before it). */
export function repairNull(
  heldOut: readonly QuestionRecord[],
  realized: readonly QuestionRecord[],
  blocks: readonly number[],
  identified: number,
  correctUnder: (r: QuestionRecord, block: number) => boolean,
  deployedCorrect: (r: QuestionRecord) => boolean,
): RepairNull | undefined {
  if (heldOut.length === 0 || blocks.length === 0) return undefined;
  const identifiedRepairs = heldOut.map((r) => (correctUnder(r, identified) ? 1 : 0));
  const randomBlock = heldOut.map((r) => blocks.filter((b) => correctUnder(r, b)).length / blocks.length);
  const n = heldOut.length;
  const repaired = identifiedRepairs.reduce((s: number, x) => s + x, 0);
  const rows = heldOut.map((_, i) => [randomBlock[i], identifiedRepairs[i] - randomBlock[i]]);
  const mean = (column: number) => rows.reduce((s, row) => s + row[column], 0) / n;
  const [nullCi, differenceCi] =
    n >= MIN_BOOTSTRAP_QUESTIONS
      ? bootstrapColumnMeans(rows, { seed: seedFor('summary', 'repair-null'), resamples: 10000 })
      : [{ estimate: mean(0), lo: null, hi: null }, { estimate: mean(1), lo: null, hi: null }];
  const medianBlock = median(blocks.map((b) => heldOut.filter((r) => correctUnder(r, b)).length / n));
  const cut = heldOut.filter((r) => r.realized.truncated);
  const whole = heldOut.filter((r) => !r.realized.truncated);
  const scanned = [...heldOut, ...realized];
  return {
    n,
    randomBlock: { rate: nullCi.estimate, lo: nullCi.lo, hi: nullCi.hi },
    medianBlock,
    difference: { estimate: differenceCi.estimate, lo: differenceCi.lo, hi: differenceCi.hi },
    pValue: poissonBinomialUpperTail(randomBlock, repaired),
    byTruncation: {
      truncated: rateOf(cut.filter((r) => correctUnder(r, identified)).length, cut.length),
      notTruncated: rateOf(whole.filter((r) => correctUnder(r, identified)).length, whole.length),
    },
    netEffect: pairedDelta(scanned.map(deployedCorrect), scanned.map((r) => correctUnder(r, identified)), DEFAULT_MARGIN),
  };
}
