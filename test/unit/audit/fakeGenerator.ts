/**
 * A deterministic stand-in for the engine (TextGenerator) in audit unit tests. Prompt ids carry
 * the prompt's characters, so the fake knows which question it is asked; each answer depends only
 * on a hash of (prompt, route, silenced blocks, seed when sampling), never on the batch, like the
 * real engine. Correctness rates are set per kind of request, so protocol logic can be checked.
 */
import { createHash } from 'node:crypto';
import type { ChatMessage, GenerateOptions, Generation, GenerationRequest, TextGenerator } from '../../../src/engine/types';

export interface FakeRates {
  deploy: number;
  sample: number;
  route: number;
  /** Silencing this block answers correctly with probability `repairRate`. */
  repairBlock: number;
  repairRate: number;
  /** Any other silenced block. */
  silenced: number;
}

export const DEFAULT_RATES: FakeRates = { deploy: 0.3, sample: 0.25, route: 0.2, repairBlock: 2, repairRate: 0.8, silenced: 0.3 };

function unit(...parts: unknown[]): number {
  const h = createHash('sha256').update(JSON.stringify(parts)).digest();
  return h.readUInt32LE(0) / 4294967296;
}

export class FakeGenerator implements TextGenerator {
  calls: number[] = [];
  constructor(
    readonly numBlocks: number,
    /** question text → gold number */
    private readonly golds: Map<string, string>,
    private readonly rates: FakeRates = DEFAULT_RATES,
    /** Abort after this many generate calls, to simulate Ctrl-C. */
    private readonly abortAfter?: { calls: number; controller: AbortController },
  ) {}

  encodeChat(messages: readonly ChatMessage[]): number[] {
    return this.encodeRaw(messages.map((m) => m.content).join('\n'));
  }
  encodeRaw(text: string): number[] {
    return [...text].map((c) => c.codePointAt(0)!);
  }
  decode(ids: readonly number[]): string {
    return String.fromCodePoint(...ids);
  }

  // The priority only orders a real engine's queue; the fake answers every call at once.
  async generate(requests: readonly GenerationRequest[], signal?: AbortSignal, _options?: GenerateOptions): Promise<Generation[]> {
    this.calls.push(requests.length);
    if (this.abortAfter && this.calls.length > this.abortAfter.calls) {
      this.abortAfter.controller.abort();
    }
    if (signal?.aborted) throw Object.assign(new Error('generation cancelled'), { name: 'AbortError' });
    return requests.map((r) => this.one(r));
  }

  private one(r: GenerationRequest): Generation {
    const prompt = this.decode(r.promptIds);
    const gold = [...this.golds.entries()].find(([text]) => prompt.includes(text))?.[1] ?? '0';
    const route = r.route ?? [];
    const silenced = r.silencedMlp ?? [];
    const sampling = r.decoding.temperature > 0;
    const key = [prompt, route, silenced, sampling ? r.decoding.seed : null];
    let p = this.rates.deploy;
    if (silenced.length > 0) p = silenced.includes(this.rates.repairBlock) ? this.rates.repairRate : this.rates.silenced;
    else if (route.length > 0) p = this.rates.route;
    else if (sampling) p = this.rates.sample;
    const u = unit('correct', ...key);
    // Wrong answers come from a small set, so majority votes have something to count.
    const answer = u < p ? gold : String(Number(gold) + 1 + Math.floor(unit('wrong', ...key) * 3));
    const truncated = unit('trunc', ...key) < 0.05;
    const text = truncated ? `Let me think about ${answer}` : `The answer is\n#### ${answer}`;
    const tokens = text.split(/\s+/).map((_, i) => i);
    const logprobs = tokens.map((_, i) => -unit('lp', i, ...key) * 2);
    const routeLen = route.length > 0 ? route.length : this.numBlocks;
    return {
      tokens,
      text,
      logprobs,
      finishReason: truncated ? 'length' : 'stop',
      cost: { generatedTokens: tokens.length, blockApplications: routeLen * (r.promptIds.length + tokens.length) },
    };
  }
}
