/**
 * The configurations compareLlamaCpp.ts measures and what its report says of them: ours and a grid
 * of llama.cpp's settings per precision and number of sequences, the best of llama.cpp by median
 * decode tokens/s, and ours over it per round.
 */
import { median } from '../../src/common';

export type Precision = 'f32' | 'int8';

/** One configuration measured in a process of its own: an engine, its settings, how many sequences. */
export interface Setup {
  engine: 'ours' | 'llama.cpp';
  precision: Precision;
  sequences: number;
  threads: number;
  /** Ours: worker threads spin between ops (see model.ts). */
  spin?: boolean;
  /** Ours, int8: the integer path (platform/int8Path.ts); absent: this processor's choice. */
  int8Path?: 'block' | 'row';
  /** llama.cpp: tokens per decode call at most (a prompt's prefill is split into calls of this many). */
  batchSize?: number;
  flashAttention?: boolean;
  /** llama.cpp: weights mapped from the GGUF file (true) or read into the process's memory. */
  mmap?: boolean;
  /**
   * llama.cpp: a batch-1 context of the same model is created and used first and kept open, as the
   * old tool's process held one beside its 16-sequence context (`--llama-beside-batch-1`: the cause
   * checked side by side; never the best configuration).
   */
  besideBatch1?: boolean;
  /**
   * llama.cpp: how tokens are asked for: 'evaluate' (a generator per sequence, node-llama-cpp's
   * sampling pipeline) or 'controlled' (controlledEvaluate: every sequence's next token asked for
   * in one call per step).
   */
  api?: 'evaluate' | 'controlled';
  /** llama.cpp: started with our engine processes' allocator settings (allocatorTuning.ts) or without. */
  engineAllocator?: boolean;
}

/** One timed run of one configuration. */
export interface Timing {
  /** Decode tokens/s from every sequence's first token to the last. */
  decode: number;
  /** Generated tokens/s end to end (prefill included). */
  endToEnd: number;
  /** Decode tokens/s over the time inside the decode calls alone (no sampling, no scheduling). */
  inCalls: number;
  /** Decode calls after the first tokens, and sequences per call (all of them: one batched call per step). */
  calls: number;
  sequencesPerCall: number;
  /** Median time of the first and of the last 4 decode calls (every sequence's token in each). */
  stepStartMs: number;
  stepEndMs: number;
  /**
   * The time between one decode call's end and the next one's start (token choice, scheduling),
   * over the decode: median, mean and 90th percentile in ms (see betweenCalls). Absent in records
   * of older versions.
   */
  gapMs?: Gaps;
  /** The measuring process's peak resident memory (VmHWM), model and caches included. */
  peakRssBytes: number;
  /** The first sequence's tokens (greedy), to check the engines agree. */
  tokens: number[];
  /** Ours: shares of the decode time in its onnxruntime calls by kind, the rest in JavaScript. */
  parts?: DecodeParts;
}

/**
 * Where our decode time went (shares of the time after the last prefill call: the first tokens' choice
 * and the decode): the block calls, the head (final norm and lm_head),
 * the log-sum-exp of the logits (logSumExp.ts), and the rest: token choice, KV cache moves,
 * scheduling, everything in JavaScript between the calls.
 */
export interface DecodeParts {
  blocks: number;
  head: number;
  logSumExp: number;
  rest: number;
}

/** The time between consecutive decode calls of one run, in ms. */
export interface Gaps {
  median: number;
  mean: number;
  p90: number;
}

/**
 * The gaps between consecutive decode calls, each given as [start, ms, …] in the order they ran.
 * Decode tokens/s over a run is set by the calls plus these gaps; a median far below the mean says
 * that a few steps stalled rather than every step costing more (what told the two llama.cpp
 * harnesses' figures apart: see the README).
 */
export function betweenCalls(calls: readonly (readonly [number, number, ...number[]])[]): Gaps {
  const gaps = calls.slice(1).map(([start], i) => start - (calls[i][0] + calls[i][1]));
  if (gaps.length === 0) return { median: Number.NaN, mean: Number.NaN, p90: Number.NaN };
  const sorted = [...gaps].sort((a, b) => a - b);
  // The nearest-rank 90th percentile: the smallest gap with at least 90% of the gaps at or below it.
  const p90 = sorted[Math.ceil(0.9 * sorted.length) - 1];
  return { median: median(gaps), mean: gaps.reduce((a, b) => a + b, 0) / gaps.length, p90 };
}

export const PEER_PRECISION: Record<Precision, { label: string; file: string }> = {
  f32: { label: 'F32', file: 'model-f32.gguf' },
  int8: { label: 'Q8_0', file: 'model-q8_0.gguf' },
};

/** How the report names a configuration (without its number of sequences). */
export function setupName(s: Setup): string {
  if (s.engine === 'ours') return `reach-audit ${s.precision}${s.int8Path ? ` ${s.int8Path} path` : ''}${s.spin ? ' (spinning threads)' : ''}`;
  return `llama.cpp ${PEER_PRECISION[s.precision].label} threads ${s.threads}, batch ${s.batchSize}, flash attention ${s.flashAttention ? 'on' : 'off'}, ${s.mmap ? 'mmap' : 'no mmap'}, ${s.api ?? 'evaluate'}${s.engineAllocator ? ', our allocator settings' : ''}${s.besideBatch1 ? ', beside a batch-1 context (old tool)' : ''}`;
}
/** Every value of a list flag ("512,64"), or `fallback`. */
export function listFlag<T>(value: string | undefined, fallback: T[], parse: (x: string) => T): T[] {
  return value === undefined ? fallback : value.split(',').map((x) => parse(x.trim()));
}

export function onOff(flag: string): (x: string) => boolean {
  return (x) => {
    if (x !== 'on' && x !== 'off') throw new Error(`${flag}: expected on and/or off (comma-separated), got "${x}"`);
    return x === 'on';
  };
}

export function wholeNumber(flag: string): (x: string) => number {
  return (x) => {
    const n = Number(x);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag}: expected whole numbers of at least 1 (comma-separated), got "${x}"`);
    return n;
  };
}

function llamaApi(x: string): 'evaluate' | 'controlled' {
  if (x !== 'evaluate' && x !== 'controlled') throw new Error(`--llama-api: expected evaluate and/or controlled (comma-separated), got "${x}"`);
  return x;
}

export function int8PathFlag(x: string): 'block' | 'row' {
  if (x !== 'block' && x !== 'row') throw new Error(`--ours-int8-path: expected block and/or row (comma-separated), got "${x}"`);
  return x;
}

function allocatorFlag(x: string): boolean {
  if (x !== 'engine' && x !== 'plain') throw new Error(`--llama-allocator: expected engine and/or plain (comma-separated), got "${x}"`);
  return x === 'engine';
}

/** Every configuration of one precision and number of sequences: ours first, then llama.cpp's grid. */
export function setupsOf(precision: Precision, sequences: number, args: (name: string) => string | undefined, threads: number, besideBatch1: boolean): Setup[] {
  const paths = precision === 'int8' ? listFlag<'block' | 'row' | undefined>(args('--ours-int8-path'), [undefined], int8PathFlag) : [undefined];
  const setups: Setup[] = listFlag(args('--ours-spin'), [false], onOff('--ours-spin')).flatMap((spin) => paths.map((int8Path): Setup => ({ engine: 'ours', precision, sequences, threads, spin, ...(int8Path ? { int8Path } : {}) })));
  for (const t of listFlag(args('--llama-threads'), [threads], wholeNumber('--llama-threads')))
    for (const batchSize of listFlag(args('--llama-batch-sizes'), [512], wholeNumber('--llama-batch-sizes')))
      for (const flashAttention of listFlag(args('--llama-flash-attention'), [false, true], onOff('--llama-flash-attention')))
        for (const mmap of listFlag(args('--llama-mmap'), [true, false], onOff('--llama-mmap')))
          for (const api of listFlag<'evaluate' | 'controlled'>(args('--llama-api'), ['evaluate', 'controlled'], llamaApi))
            for (const engineAllocator of listFlag(args('--llama-allocator'), [false], allocatorFlag))
              setups.push({ engine: 'llama.cpp', precision, sequences, threads: t, batchSize: Math.max(batchSize, sequences), flashAttention, mmap, api, engineAllocator });
  if (besideBatch1 && sequences > 1) {
    const first = setups.find((s) => s.engine === 'llama.cpp');
    if (first) setups.push({ ...first, besideBatch1: true });
  }
  return setups;
}

/** What the report prints of a group: a line per configuration, the winner, the ratios. */
export function groupReport(setups: readonly Setup[], results: readonly Timing[][], settings: { promptTokens: number; newTokens: number; sharedPrompt?: boolean }, rounds: number): string[] {
  const fmt = (xs: number[]): string => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
  const { precision, sequences, threads } = setups[0];
  const lines = [`== ${precision} / ${PEER_PRECISION[precision].label}, ${sequences === 1 ? 'batch 1' : `${sequences} sequences in lock step`}: ${rounds} interleaved rounds, each configuration in its own process with one context, ${settings.promptTokens}-token prompts${settings.sharedPrompt ? (sequences > 1 ? ' (one prompt shared by the sequences, computed once; warm-up on a 32-token prompt)' : ' (warm-up on a 32-token prompt)') : ''}, ${settings.newTokens} new tokens, ours on ${threads} threads; tokens/s medians (min–max)`];
  const peers = setups.map((_, i) => i).filter((i) => setups[i].engine === 'llama.cpp');
  const best = peers.filter((i) => !setups[i].besideBatch1).reduce((a, i) => (median(results[i].map((x) => x.decode)) > median(results[a].map((x) => x.decode)) ? i : a), peers[0]);
  const width = Math.max(...setups.map((s) => setupName(s).length));
  for (const [i, s] of setups.entries()) {
    const r = results[i];
    const mark = i === best ? '  ← llama.cpp best' : '';
    lines.push(`${setupName(s).padEnd(width)}  decode ${fmt(r.map((x) => x.decode))} | end to end ${fmt(r.map((x) => x.endToEnd))} | in decode calls ${fmt(r.map((x) => x.inCalls))} (${median(r.map((x) => x.calls))} calls of ${median(r.map((x) => x.sequencesPerCall)).toFixed(1)} sequences)${mark}`);
  }
  lines.push(`best llama.cpp configuration: ${setupName(setups[best])}`);
  for (const [i, s] of setups.entries()) {
    const r = results[i];
    const gaps = r.flatMap((x) => (x.gapMs ? [x.gapMs] : []));
    const between = gaps.length ? ` | ms between decode calls: median ${fmt(gaps.map((g) => g.median))}, mean ${fmt(gaps.map((g) => g.mean))}, 90th percentile ${fmt(gaps.map((g) => g.p90))}` : '';
    lines.push(`${setupName(s).padEnd(width)}  ms per decode call, first 4 → last 4: ${fmt(r.map((x) => x.stepStartMs))} → ${fmt(r.map((x) => x.stepEndMs))}${between} | peak RSS ${(median(r.map((x) => x.peakRssBytes)) / 1e9).toFixed(2)} GB`);
  }
  for (const [i, s] of setups.entries()) {
    if (s.engine !== 'ours') continue;
    const parts = results[i].flatMap((x) => (x.parts ? [x.parts] : []));
    const share = (k: keyof DecodeParts): string => `${(100 * median(parts.map((x) => x[k]))).toFixed(1)}%`;
    lines.push(`${setupName(s)}, where the decode time went (median shares): block calls ${share('blocks')}, head ${share('head')}, log-sum-exp ${share('logSumExp')}, the rest (token choice, KV cache moves, scheduling) ${share('rest')}`);
    const ratio = (k: 'decode' | 'endToEnd' | 'inCalls'): string => fmt(results[i].map((x, r) => x[k] / results[best][r][k]));
    lines.push(`${setupName(s)} / llama.cpp best, per round: decode ${ratio('decode')}, end to end ${ratio('endToEnd')}, in decode calls ${ratio('inCalls')}`);
  }
  if (sequences === 1) {
    const agree = peers.map((i) => {
      const d = results[0][0].tokens.findIndex((t, j) => t !== results[i][0].tokens[j]);
      return d < 0 ? 'equal' : `first difference at token ${d + 1}`;
    });
    const same = agree.every((a) => a === agree[0]);
    lines.push(`greedy tokens vs ours (round 1): ${same ? `${agree[0]} for every llama.cpp configuration` : peers.map((i, j) => `${setupName(setups[i])}: ${agree[j]}`).join('; ')} (of ${settings.newTokens})`);
  }
  return lines;
}

