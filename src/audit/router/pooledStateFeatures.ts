/**
 * The learned router's pooled-state features: the deployment prefill's mean residual after a
 * stated block (read by the engine during that prefill, no extra pass) times a seeded Gaussian
 * matrix H × dims. A random projection keeps the distances between questions' states up to a small
 * distortion (Johnson–Lindenstrauss) while a record holds `dims` numbers whatever the model's
 * width, and a router fit on 100-odd questions has few weights to fit. Rounded to five significant
 * digits so that a record's text is short; the same state gives the same digits in every run,
 * shard and resume (the engine's rows do not depend on their batch-mates).
 */
import { seededRandom } from '../stats';

/** Dimensions of the projected state. */
export const ROUTER_STATE_DIMS = 16;
/** The projection matrix's seed, fixed so that runs of any seed (base and tuned alike) project alike. */
export const ROUTER_PROJECTION_SEED = 53;

/** The block whose output is pooled when none is named: the middle of the model (block ⌊L/2⌋). */
export function defaultStateBlock(numBlocks: number): number {
  return Math.floor(numBlocks / 2);
}

/** A block a user may name: one of the model's. */
export function checkStateBlock(block: number, numBlocks: number): string | undefined {
  if (Number.isInteger(block) && block >= 0 && block < numBlocks) return undefined;
  return `expected a block from 0 to ${numBlocks - 1} (the model has ${numBlocks}; default ${defaultStateBlock(numBlocks)}), got '${block}'`;
}

/** Row-major H × dims matrix of standard normal draws (Box–Muller), from the seed alone. */
function projectionMatrix(hidden: number, dims: number, seed: number): Float64Array {
  const rand = seededRandom('learned-route-projection', seed, hidden, dims);
  const m = new Float64Array(hidden * dims);
  for (let i = 0; i < m.length; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - rand()));
    const theta = 2 * Math.PI * rand();
    m[i] = r * Math.cos(theta);
    if (i + 1 < m.length) m[i + 1] = r * Math.sin(theta);
  }
  return m;
}

const matrices = new Map<string, Float64Array>();

/** The pooled state projected to `dims` numbers (scaled by 1/√dims), five significant digits each. */
export function projectPooledState(pooled: readonly number[], dims: number = ROUTER_STATE_DIMS, seed: number = ROUTER_PROJECTION_SEED): number[] {
  const H = pooled.length;
  const key = `${H}:${dims}:${seed}`;
  let m = matrices.get(key);
  if (!m) {
    m = projectionMatrix(H, dims, seed);
    matrices.set(key, m);
  }
  const out = new Array<number>(dims).fill(0);
  for (let h = 0; h < H; h++) for (let d = 0; d < dims; d++) out[d] += pooled[h] * m[h * dims + d];
  // +0 turns a -0 into 0, so the text never reads "-0".
  return out.map((v) => Number((v / Math.sqrt(dims)).toPrecision(5)) + 0);
}
