/**
 * The order top-p sampling walks: tokens by probability, descending, ties by lower id, as far as
 * the running mass needs to go.
 *
 * Why not `Array.prototype.sort` over the vocabulary: at 152k tokens it took 75–80 ms per sampled
 * token (the exponentials take 2 ms), which made a top-p < 1 generation several times slower than
 * its decode steps. Two things keep the order exact while making it cheap: only the most likely
 * tokens are sorted when they carry the mass, and a large set is sorted by a stable radix sort of
 * the probabilities' bits.
 */

/** Above this many tokens a radix sort is faster than the comparison sort. */
const RADIX_FROM = 2048;

/** Which 32-bit half of a float64 holds its low bits, on this machine. */
const [LOW_WORD, HIGH_WORD] = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? [0, 1] : [1, 0];

/** Below this share of the vocabulary the candidates are sorted; above it, every token with p > 0. */
const CANDIDATE_SHARE = 0.25;

/**
 * Tokens of p (p[argmax] = 1, every p ≥ 0) in nucleus order, at least up to where the running mass
 * (summed in that order) reaches `limit`. The candidates are all tokens with p ≥ τ, τ lowered until
 * their mass exceeds the limit by a margin far above what a summation order changes (n · 2⁻⁵³
 * relative): the full order's prefix that reaches the limit then lies inside them, and they sort
 * among themselves as they would among all tokens, so the walk is the same bit for bit.
 */
export function nucleusCandidates(p: Float64Array, limit: number): Uint32Array {
  const n = p.length;
  const margin = limit * (1 + 1e-9);
  for (let tau = 1 / 16; tau >= 1e-30; tau /= 16) {
    let mass = 0;
    let count = 0;
    for (let i = 0; i < n; i++) {
      if (p[i] >= tau) {
        mass += p[i];
        count++;
      }
    }
    if (count > n * CANDIDATE_SHARE) break;
    if (mass > margin) return byProbability(p, tokensWhere(p, count, (x) => x >= tau));
  }
  let positive = 0;
  for (let i = 0; i < n; i++) if (p[i] > 0) positive++;
  return byProbability(p, tokensWhere(p, positive, (x) => x > 0));
}

function tokensWhere(p: Float64Array, count: number, keep: (x: number) => boolean): Uint32Array {
  const out = new Uint32Array(count);
  let k = 0;
  for (let i = 0; i < p.length; i++) if (keep(p[i])) out[k++] = i;
  return out;
}

/** `tokens` (ascending ids) sorted by p descending, equal p by lower id. */
export function byProbability(p: Float64Array, tokens: Uint32Array): Uint32Array {
  if (tokens.length < RADIX_FROM) return tokens.sort((x, y) => p[y] - p[x] || x - y);
  return radixDescending(p, tokens);
}

/**
 * Stable LSD radix sort by the 64-bit pattern of p, largest first: for positive doubles the bit
 * pattern orders as the value does, and stability keeps equal p in ascending id order.
 */
function radixDescending(p: Float64Array, tokens: Uint32Array): Uint32Array {
  // Int32 views: V8 keeps int32 values unboxed, where uint32 above 2³¹ became doubles (2× slower).
  const bits = new Int32Array(p.buffer, p.byteOffset, p.length * 2);
  const m = tokens.length;
  // Each token's key halves travel with it, so every pass reads them in order.
  let order: Uint32Array = tokens;
  let low = new Int32Array(m);
  let high = new Int32Array(m);
  for (let j = 0; j < m; j++) {
    low[j] = bits[2 * tokens[j] + LOW_WORD];
    high[j] = bits[2 * tokens[j] + HIGH_WORD];
  }
  let order2: Uint32Array = new Uint32Array(m);
  let low2 = new Int32Array(m);
  let high2 = new Int32Array(m);
  const counts = new Int32Array(65536);
  for (let pass = 0; pass < 4; pass++) {
    const keys = pass < 2 ? low : high;
    const shift = pass % 2 === 0 ? 0 : 16;
    counts.fill(0);
    for (let j = 0; j < m; j++) counts[(keys[j] >>> shift) & 0xffff]++;
    if (counts[(keys[0] >>> shift) & 0xffff] === m) continue; // one digit for all: nothing moves
    // Descending: the largest digit's tokens go first.
    let at = 0;
    for (let d = 65535; d >= 0; d--) {
      const c = counts[d];
      counts[d] = at;
      at += c;
    }
    for (let j = 0; j < m; j++) {
      const to = counts[(keys[j] >>> shift) & 0xffff]++;
      order2[to] = order[j];
      low2[to] = low[j];
      high2[to] = high[j];
    }
    const o = order;
    order = order2;
    order2 = o;
    const l = low;
    low = low2;
    low2 = l;
    const h = high;
    high = high2;
    high2 = h;
  }
  return order;
}
