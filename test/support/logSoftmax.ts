/** log softmax(v)[i] straight from the definition, in float64: the reference for log-probabilities. */
export function logSoftmaxAt(v: ArrayLike<number>, i: number): number {
  let max = -Infinity;
  for (let j = 0; j < v.length; j++) max = Math.max(max, v[j]);
  let sum = 0;
  for (let j = 0; j < v.length; j++) sum += Math.exp(v[j] - max);
  return v[i] - max - Math.log(sum);
}
