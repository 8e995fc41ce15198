/**
 * The permutation nulls of the mechanism's agreement tests (docs/design/repair-and-mechanism.md, "Mechanism"): under
 * "the suppressor has nothing to do with the question's repair", the suppressors observed are
 * exchangeable across questions, so the null shuffles them and keeps each question's repair result.
 * Unlike a uniformly random block, this keeps the suppressors' own distribution: suppressors and
 * repairing blocks that both lean late agree more often than 1/L by that alone, and a uniform null
 * calls that agreement.
 */
import { seededRandom } from '../stats';

/** Above this many questions the repairing-blocks null is drawn (seeded) rather than enumerated (7! = 5,040). */
const EXACT_UP_TO = 7;
export const PERMUTATIONS = 10_000;

export interface PermutationNull {
  /** Agreements expected under the null. */
  expected: number;
  /** One-sided p of at least the observed agreements. */
  p: number;
  /** 'exact', or the number of seeded permutations drawn. */
  permutations: number | 'exact';
}

/** ln C(n, k). */
function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log((n - k + i) / i);
  return s;
}

/**
 * P(X ≥ x) for X hypergeometric: `draws` questions of `population`, `marked` of which carry the
 * block — the exact null of the identified-block test (one block, so the shuffle's count is
 * hypergeometric: Fisher's exact test, one-sided).
 */
export function hypergeometricUpperTail(population: number, marked: number, draws: number, x: number): number {
  const hi = Math.min(marked, draws);
  let p = 0;
  for (let k = Math.max(x, 0, draws - (population - marked)); k <= hi; k++) {
    p += Math.exp(logChoose(marked, k) + logChoose(population - marked, draws - k) - logChoose(population, draws));
  }
  return Math.min(1, p);
}

/** Question i's repairing blocks as a flat membership table (row i, column block), for fast counting. */
function membership(repairing: readonly (readonly number[])[], width: number): Uint8Array {
  const table = new Uint8Array(repairing.length * width);
  repairing.forEach((blocks, i) => blocks.forEach((b) => (table[i * width + b] = 1)));
  return table;
}

function agreements(suppressors: readonly number[], table: Uint8Array, width: number): number {
  let t = 0;
  for (let i = 0; i < suppressors.length; i++) t += table[i * width + suppressors[i]];
  return t;
}

/** Every ordering of `items` (small n only). */
function* orderings(items: readonly number[]): Generator<number[]> {
  if (items.length <= 1) {
    yield [...items];
    return;
  }
  for (let i = 0; i < items.length; i++) {
    const rest = [...items.slice(0, i), ...items.slice(i + 1)];
    for (const tail of orderings(rest)) yield [items[i], ...tail];
  }
}

/**
 * The repairing-blocks test's null: Σ [suppressor ∈ repairing blocks] with the suppressors shuffled
 * across the questions; exact up to 7 questions, else `permutations` seeded draws (p = (1 + hits) / (1 + draws)).
 */
export function repairingPermutationNull(suppressors: readonly number[], repairing: readonly (readonly number[])[], permutations = PERMUTATIONS, seed = 0): PermutationNull {
  const width = 1 + Math.max(0, ...suppressors, ...repairing.flat());
  const table = membership(repairing, width);
  const observed = agreements(suppressors, table, width);
  if (suppressors.length <= EXACT_UP_TO) {
    let count = 0;
    let atLeast = 0;
    let sum = 0;
    for (const order of orderings(suppressors)) {
      const t = agreements(order, table, width);
      count++;
      sum += t;
      if (t >= observed) atLeast++;
    }
    return { expected: sum / count, p: atLeast / count, permutations: 'exact' };
  }
  const random = seededRandom(seed, 'mechanism-permutation-null');
  const shuffled = [...suppressors];
  let atLeast = 0;
  let sum = 0;
  for (let d = 0; d < permutations; d++) {
    // Fisher–Yates on the previous draw: each draw is a uniform permutation.
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
    }
    const t = agreements(shuffled, table, width);
    sum += t;
    if (t >= observed) atLeast++;
  }
  return { expected: sum / permutations, p: (1 + atLeast) / (1 + permutations), permutations };
}
