/**
 * Gathers generation requests that arrive one by one (HTTP clients) into engine batches: while the
 * engine is busy new requests wait; when it is free it takes up to `maxBatch` of them at once. An
 * idle engine waits `gatherMs` after the first request for the others a client sends together
 * (they arrive on separate connections, a few hundred microseconds apart), so they share a batch.
 * A request whose client went away before its batch started is dropped.
 */
import type { Generation, GenerationRequest, TextGenerator } from '../engine/index';

interface Pending {
  request: GenerationRequest;
  signal?: AbortSignal;
  resolve(g: Generation): void;
  reject(e: unknown): void;
}

export class GenerationQueue {
  private readonly pending: Pending[] = [];
  private busy = false;
  /** Batches run so far and their sizes (for the health endpoint and tests). */
  readonly batchSizes: number[] = [];

  private gathering = false;

  constructor(
    private readonly generator: Pick<TextGenerator, 'generate'>,
    private readonly maxBatch: number,
    private readonly gatherMs = 5,
  ) {}

  generate(request: GenerationRequest, signal?: AbortSignal): Promise<Generation> {
    return new Promise<Generation>((resolve, reject) => {
      this.pending.push({ request, signal, resolve, reject });
      if (this.busy || this.gathering) return;
      if (this.pending.length >= this.maxBatch) return void this.pump();
      this.gathering = true;
      setTimeout(() => {
        this.gathering = false;
        void this.pump();
      }, this.gatherMs);
    });
  }

  get waiting(): number {
    return this.pending.length;
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    const batch: Pending[] = [];
    while (batch.length < this.maxBatch && this.pending.length > 0) {
      const p = this.pending.shift()!;
      if (p.signal?.aborted) p.reject(p.signal.reason);
      else batch.push(p);
    }
    if (batch.length === 0) return;
    this.busy = true;
    this.batchSizes.push(batch.length);
    try {
      const out = await this.generator.generate(batch.map((p) => p.request));
      batch.forEach((p, i) => p.resolve(out[i]));
    } catch (err) {
      batch.forEach((p) => p.reject(err));
    } finally {
      this.busy = false;
      if (this.pending.length > 0) void this.pump();
    }
  }
}
