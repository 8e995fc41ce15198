/**
 * A sequential one-sided test of a success rate against a threshold θ, with exact error rates
 * (docs/design/probes.md, "Foreclosure window"). Samples come in looks of `look` at a time, up to `most`.
 * After each look of n samples with s successes, the rate is decided **above θ** when s reaches
 * the upper boundary, **below θ** when s falls to the lower one, and sampling goes on otherwise;
 * at `most` without either it is **undecided**. The boundaries are the tightest whose chance of a
 * wrong decision, computed exactly at rate θ over every sample path (dynamic programming over the
 * successes of the paths still undecided), is at most error·n/most by the n-th sample on each side
 * (linear error spending): deciding "above" when the rate is θ, or "below" when it is θ, each
 * happens with probability at most `error` in all. Either wrong decision is less likely further
 * from θ on its side (more successes only move a path towards "above"), so `error` bounds it for
 * every rate ≤ θ ("above" wrong) and every rate ≥ θ ("below" wrong).
 */

export type RateDecision = 'above' | 'below' | 'undecided';

export interface SequentialRateTest {
  readonly threshold: number;
  readonly error: number;
  readonly most: number;
  readonly look: number;
  /** Sample counts at which a decision may be taken: every `look` samples, and `most`. */
  readonly looks: readonly number[];
  /** At looks[i]: decided "above" when successes ≥ upper[i] (never when it exceeds looks[i]). */
  readonly upper: readonly number[];
  /** At looks[i]: decided "below" when successes ≤ lower[i] (never when negative). */
  readonly lower: readonly number[];
  /** The exact probability of each decision at rate θ (both are wrong there): each at most `error`. */
  readonly atThreshold: { readonly above: number; readonly below: number };
}

/** Where the error may be at most: below this, the two boundaries could meet. */
export const MOST_TEST_ERROR = 0.25;

/** The paths still undecided, advanced by one Bernoulli(p) sample (dist[s]: probability of s successes so far). */
function advance(dist: readonly number[], p: number): number[] {
  const next = new Array<number>(dist.length + 1).fill(0);
  for (let s = 0; s < dist.length; s++) {
    next[s] += dist[s] * (1 - p);
    next[s + 1] += dist[s] * p;
  }
  return next;
}

function looksOf(most: number, look: number): number[] {
  const looks: number[] = [];
  for (let n = look; n < most; n += look) looks.push(n);
  looks.push(most);
  return looks;
}

export function sequentialRateTest(threshold: number, error: number, most: number, look: number): SequentialRateTest {
  if (!(threshold > 0 && threshold < 1)) throw new RangeError(`sequentialRateTest: threshold must be in (0, 1), got ${threshold}`);
  if (!(error > 0 && error <= MOST_TEST_ERROR)) throw new RangeError(`sequentialRateTest: error must be in (0, ${MOST_TEST_ERROR}], got ${error}`);
  if (!Number.isInteger(most) || most < 1) throw new RangeError(`sequentialRateTest: most must be a whole number ≥ 1, got ${most}`);
  if (!Number.isInteger(look) || look < 1) throw new RangeError(`sequentialRateTest: look must be a whole number ≥ 1, got ${look}`);
  const looks = looksOf(most, look);
  const upper: number[] = [];
  const lower: number[] = [];
  let dist = [1];
  let n = 0;
  let spentAbove = 0;
  let spentBelow = 0;
  for (const at of looks) {
    while (n < at) {
      dist = advance(dist, threshold);
      n++;
    }
    const allowed = (error * n) / most;
    // The smallest u whose upper tail still fits what may be spent by now.
    let u = n + 1;
    let tail = 0;
    for (let s = n; s >= 0; s--) {
      if (spentAbove + tail + dist[s] > allowed) break;
      tail += dist[s];
      u = s;
    }
    let l = -1;
    let head = 0;
    for (let s = 0; s < u; s++) {
      if (spentBelow + head + dist[s] > allowed) break;
      head += dist[s];
      l = s;
    }
    spentAbove += tail;
    spentBelow += head;
    for (let s = 0; s <= n; s++) if (s >= u || s <= l) dist[s] = 0;
    upper.push(u);
    lower.push(l);
  }
  return { threshold, error, most, look, looks, upper, lower, atThreshold: { above: spentAbove, below: spentBelow } };
}

/** The decision after looks[i] with `successes`, or null to sample on (undecided after the last look). */
export function decisionAt(t: SequentialRateTest, i: number, successes: number): RateDecision | null {
  if (successes >= t.upper[i]) return 'above';
  if (successes <= t.lower[i]) return 'below';
  return i === t.looks.length - 1 ? 'undecided' : null;
}

/** The decision a sequence of outcomes gives, and how many of them it used. */
export function decide(t: SequentialRateTest, outcomes: readonly boolean[]): { decision: RateDecision; samples: number; successes: number } {
  let successes = 0;
  let n = 0;
  for (let i = 0; i < t.looks.length; i++) {
    if (outcomes.length < t.looks[i]) throw new RangeError(`decide: ${t.looks[i]} outcomes needed at look ${i + 1}, got ${outcomes.length}`);
    for (; n < t.looks[i]; n++) if (outcomes[n]) successes++;
    const d = decisionAt(t, i, successes);
    if (d) return { decision: d, samples: n, successes };
  }
  return { decision: 'undecided', samples: n, successes };
}

/**
 * The test's operating characteristic at any rate, exactly: the probability of each decision and
 * the mean number of samples taken (for the calibration table and the documentation).
 */
export function operatingCharacteristic(t: SequentialRateTest, rate: number): { above: number; below: number; undecided: number; meanSamples: number } {
  let dist = [1];
  let n = 0;
  let above = 0;
  let below = 0;
  let meanSamples = 0;
  t.looks.forEach((at, i) => {
    while (n < at) {
      dist = advance(dist, rate);
      n++;
    }
    for (let s = 0; s <= n; s++) {
      if (s >= t.upper[i]) above += dist[s];
      else if (s <= t.lower[i]) below += dist[s];
      else continue;
      meanSamples += dist[s] * n;
      dist[s] = 0;
    }
  });
  const undecided = dist.reduce((a, b) => a + b, 0);
  return { above, below, undecided, meanSamples: meanSamples + undecided * t.most };
}
