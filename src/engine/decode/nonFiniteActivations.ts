/**
 * Activations that stop being numbers. Weights are checked at load (weights.ts), but finite
 * weights can still overflow float32 on some input: a block's output or the logits then hold NaN
 * or ±Infinity, and greedy decoding would emit token 0 for ever without a word. The executor checks
 * every block's output rows and the logits (a linear scan, small beside the block's matrix
 * products) and throws this error at the first non-finite value, naming the block, the route and
 * the token; the model adds its folder.
 */
import { InputError } from '../../common';

/** Index of the first NaN or ±Infinity in data[from, to), or -1. */
export function firstNonFinite(data: Float32Array, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    // x - x is 0 for every finite x and NaN for NaN and ±Infinity: one test for both.
    const x = data[i];
    if (x - x !== 0) return i;
  }
  return -1;
}

export function nonFiniteName(x: number): string {
  return Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
}

export class NonFiniteActivations extends InputError {
  override name = 'NonFiniteActivations';

  constructor(
    /** What produced the value, where: "block 2 (position 3 of route [0,1,2,2,3]) produced NaN at …". */
    readonly detail: string,
    /** The model folder, once the model has added it. */
    readonly model?: string,
  ) {
    super(`${model ? `model ${model}: ` : ''}${detail}; the weights are finite (checked at load), so the activations overflow float32 on this input`);
  }

  inModel(model: string): NonFiniteActivations {
    return new NonFiniteActivations(this.detail, model);
  }
}
