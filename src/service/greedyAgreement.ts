/**
 * How far two generations of the same requests agree, token by token: the fidelity of a changed
 * numeric (a smaller KV cache) against the reference. Per sequence the agreeing prefix is the
 * tokens up to the first that differs; over it the chosen tokens' log-probs are compared (after a
 * divergence the two continue from different texts, so their log-probs no longer measure the
 * numeric). Pure: the generations come from the caller.
 */

export interface GeneratedTokens {
  tokens: readonly number[];
  logprobs: readonly number[];
}

export interface GreedyAgreement {
  sequences: number;
  /** Sequences whose tokens are all identical (same length too). */
  identicalSequences: number;
  /** Reference tokens, and those before each sequence's first divergence. */
  referenceTokens: number;
  agreeingTokens: number;
  /** |Δ log-prob| of the chosen tokens over the agreeing prefixes: max and mean (0 when none agree). */
  maxLogprobError: number;
  meanLogprobError: number;
  /** Token index of each sequence's first divergence (null: none). */
  firstDivergence: (number | null)[];
}

export function greedyAgreement(reference: readonly GeneratedTokens[], test: readonly GeneratedTokens[]): GreedyAgreement {
  if (reference.length !== test.length) throw new Error(`internal: ${reference.length} reference generations against ${test.length}`);
  let identicalSequences = 0;
  let referenceTokens = 0;
  let agreeingTokens = 0;
  let maxLogprobError = 0;
  let errorSum = 0;
  const firstDivergence: (number | null)[] = [];
  reference.forEach((r, i) => {
    const t = test[i];
    const common = Math.min(r.tokens.length, t.tokens.length);
    let k = 0;
    while (k < common && r.tokens[k] === t.tokens[k]) {
      const e = Math.abs(r.logprobs[k] - t.logprobs[k]);
      maxLogprobError = Math.max(maxLogprobError, e);
      errorSum += e;
      k++;
    }
    const same = k === r.tokens.length && k === t.tokens.length;
    if (same) identicalSequences++;
    firstDivergence.push(same ? null : k);
    referenceTokens += r.tokens.length;
    agreeingTokens += k;
  });
  return {
    sequences: reference.length,
    identicalSequences,
    referenceTokens,
    agreeingTokens,
    maxLogprobError,
    meanLogprobError: agreeingTokens ? errorSum / agreeingTokens : 0,
    firstDivergence,
  };
}

/** "agreement: 97.5% of tokens (390/400) before the first divergence, 18/20 sequences identical; |Δ log-prob| max 3.1e-4, mean 2.0e-5". */
export function greedyAgreementText(a: GreedyAgreement): string {
  const share = a.referenceTokens ? (100 * a.agreeingTokens) / a.referenceTokens : 100;
  return `${share.toFixed(1)}% of tokens (${a.agreeingTokens}/${a.referenceTokens}) before the first divergence, ` +
    `${a.identicalSequences}/${a.sequences} sequences identical; |Δ log-prob| over the agreeing tokens max ${a.maxLogprobError.toExponential(1)}, mean ${a.meanLogprobError.toExponential(1)}`;
}
