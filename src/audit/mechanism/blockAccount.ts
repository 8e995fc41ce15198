/**
 * A block inspection read for one pair of tokens: the logit lens difference g − d and the ranks of
 * g and d after each block, each block's attention and MLP direct attribution to g − d, and the
 * suppressing block (docs/design/repair-and-mechanism.md, mechanism).
 */
import type { BlockInspection } from '../../engine';
import type { BlockAccount } from '../../contract';

/** 1-based rank of token t in the logits: 1 + how many tokens score strictly higher. */
export function rankOf(logits: Float32Array, t: number): number {
  const x = logits[t];
  let above = 0;
  for (let i = 0; i < logits.length; i++) if (logits[i] > x) above++;
  return above + 1;
}

export function argmax(logits: Float32Array): number {
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  return best;
}

/** Index of the most negative value; null when none is negative (ties: the lower index). */
export function mostNegative(values: readonly number[]): number | null {
  let best: number | null = null;
  values.forEach((v, i) => {
    if (v < 0 && (best === null || v < values[best])) best = i;
  });
  return best;
}

export interface TokenAccount {
  embedding: number;
  blocks: BlockAccount[];
  suppressor: number | null;
  blockSuppressor: number | null;
  top: number;
}

/** Rounds to 6 significant digits: the file stays readable and float32 numbers carry no more. */
function round(x: number): number {
  return Number(x.toPrecision(6));
}

export function accountFor(ins: BlockInspection, g: number, d: number): TokenAccount {
  const diff = (v: Float32Array): number => v[g] - v[d];
  const blocks: BlockAccount[] = ins.lens.map((lens, b) => ({
    lens: round(diff(lens)),
    rankG: rankOf(lens, g),
    rankD: rankOf(lens, d),
    attention: round(diff(ins.direct.attention[b])),
    mlp: round(diff(ins.direct.mlp[b])),
  }));
  return {
    embedding: round(diff(ins.direct.embedding)),
    blocks,
    suppressor: mostNegative(ins.direct.mlp.map(diff)),
    blockSuppressor: mostNegative(ins.direct.mlp.map((m, b) => diff(m) + diff(ins.direct.attention[b]))),
    top: argmax(ins.lens[ins.lens.length - 1]),
  };
}
