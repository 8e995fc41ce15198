/**
 * Exact McNemar test for paired binary outcomes (e.g. realized on base vs tuned): under the null
 * the b + c discordant pairs split Binomial(b + c, 1/2); the two-sided p-value doubles the smaller
 * tail, capped at 1.
 */
export function mcnemarExact(b: number, c: number): number {
  for (const [name, v] of [['b', b], ['c', c]] as const) {
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`mcnemarExact: ${name} must be a non-negative integer, got ${v}`);
  }
  const n = b + c;
  if (n === 0) return 1;
  const m = Math.min(b, c);
  // Sum P(X = i), i = 0..m, in log space: 2^-n underflows for n > 1074.
  let logTerm = -n * Math.LN2; // log P(X = 0)
  let maxLog = logTerm;
  const logs: number[] = [logTerm];
  for (let i = 0; i < m; i++) {
    logTerm += Math.log((n - i) / (i + 1));
    logs.push(logTerm);
    if (logTerm > maxLog) maxLog = logTerm;
  }
  let sum = 0;
  for (const l of logs) sum += Math.exp(l - maxLog);
  const tail = Math.exp(maxLog + Math.log(sum));
  return Math.min(1, 2 * tail);
}
