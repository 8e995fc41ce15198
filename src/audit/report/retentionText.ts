/**
 * Blind vs oracle in words (design: "Answer-blind selection"), one reading for the text report and
 * the HTML report. The share (blind − realized) / (reachable − realized) is a share only when the
 * selector lands between the deployment and the probe's reach; outside that range the ratio is a
 * misleading number ("−450%" when the blind pick is below the deployment and the probe gains little,
 * above 100% when a selector is right beyond the probe's attempts), so those cases are said in words
 * with the rates they compare, each with its interval and n.
 */
import { formatPercent as pct, MIN_BOOTSTRAP_QUESTIONS, type BlindRetention, type Rate } from '../../contract';

export type RetentionKind =
  /** No question to measure on. */
  | 'empty'
  /** The blind pick is right on fewer questions than the deployment. */
  | 'below'
  /** The probe reaches no more than the deployment: there is no gain to keep. */
  | 'noGain'
  /** The blind pick is right on more questions than the probe reaches (a selector outside the probe's attempts). */
  | 'beyond'
  /** Between the deployment and the probe's reach: the share kept, 0–100%. */
  | 'keeps';

/**
 * What the ratio nets, said apart: the blind pick's right answers on the gain set beside the
 * probe's reach there, and its wrong answers on the realized questions; empty for an older file.
 */
export function retentionSplit(probe: string, kept: BlindRetention): string {
  const { recovered, lost } = kept;
  if (!recovered || !lost) return '';
  const gain = recovered.blind.n === 0 ? 'no question outside the deployment' : `recovers ${recovered.blind.successes} of the ${recovered.blind.n} questions the deployment misses (${rateWithInterval(recovered.blind)}; ${probe} reaches ${recovered.reachable.successes}, ${rateWithInterval(recovered.reachable)})`;
  const realized = lost.n === 0 ? 'no realized question to lose' : `loses ${lost.successes} of the ${lost.n} realized (${rateWithInterval(lost)})`;
  return `${gain}; ${realized}`;
}

export interface RetentionReading {
  kind: RetentionKind;
  /** "keeps 40.0% [12.5%, 70.0%] of the routes probe's gain over the deployment, …", "below the deployment: …", … */
  verdict: string;
  /** The rates compared, each with its 95% interval, and n: "blind 10.0% [4.0%, 22.9%] vs deployed 40.0% [26.3%, 55.4%] …, n = 40". */
  basis: string;
}

/** "45.0% [31.0%, 59.9%]". */
function rateWithInterval(r: Rate): string {
  return `${pct(r.rate)} [${pct(r.ci.lo)}, ${pct(r.ci.hi)}]`;
}

/**
 * A bound of the share's bootstrap interval: a resample can fall below the deployment or beyond the
 * probe's reach even when the estimate is a share, and that is said as "<0%" / ">100%", not as a number.
 */
function shareBound(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '—';
  if (x < 0) return '<0%';
  if (x > 1) return '>100%';
  return pct(x);
}

export function retentionReading(probe: string, kept: BlindRetention): RetentionReading {
  const { n, blind, realized, reachable } = kept;
  if (n === 0) return { kind: 'empty', verdict: `keeps — of the ${probe} probe's gain`, basis: 'n = 0' };
  const b = `blind ${rateWithInterval(blind)}`;
  const d = `deployed ${rateWithInterval(realized)}`;
  const r = `reachable by ${probe} ${rateWithInterval(reachable)}`;
  const gain = reachable.successes > realized.successes;
  if (blind.successes < realized.successes) {
    return {
      kind: 'below',
      verdict: gain ? `below the deployment: it loses more realized answers than it recovers of the ${probe} probe's gain` : `below the deployment; ${probe} reaches no more than the deployment either`,
      basis: `${b} vs ${d}; ${r}; n = ${n}`,
    };
  }
  if (!gain) {
    return { kind: 'noGain', verdict: `keeps — of the ${probe} probe's gain: ${probe} reaches no more than the deployment`, basis: `${r} vs ${d}; ${b}; n = ${n}` };
  }
  if (blind.successes > reachable.successes) {
    return { kind: 'beyond', verdict: `beyond the ${probe} probe's reach: right more often than any ${probe} attempt (not a share of its gain)`, basis: `${b} vs ${r}; ${d}; n = ${n}` };
  }
  // summary.json's estimate; the same ratio of counts, which stands in for a run file without it.
  const share = kept.retained ?? (blind.successes - realized.successes) / (reachable.successes - realized.successes);
  const interval = kept.ci ? `[${shareBound(kept.ci.lo)}, ${shareBound(kept.ci.hi)}]` : n < MIN_BOOTSTRAP_QUESTIONS ? `(no bootstrap interval below ${MIN_BOOTSTRAP_QUESTIONS} questions)` : '[—]';
  return {
    kind: 'keeps',
    verdict: `keeps ${pct(share)} ${interval} of the ${probe} probe's gain over the deployment, (blind − realized)/(reachable − realized)`,
    basis: `${b} vs ${d} vs ${r}; n = ${n}`,
  };
}

/** One line for the text report: the verdict, then the rates it compares. */
export function retentionLine(probe: string, kept: BlindRetention): string {
  const reading = retentionReading(probe, kept);
  const split = retentionSplit(probe, kept);
  return `${reading.verdict} (${reading.basis})${split ? `; ${split}` : ''}`;
}
