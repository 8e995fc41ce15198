/**
 * The prompt tokens a generation is charged for (its cost's block applications, types.ts): all of
 * them, or for a continuation only the ones it adds, since the rest are the continued generation's
 * and charged to it. The same whether or not the engine still kept that generation's state, so a
 * cost never depends on what else ran.
 */
import type { GenerationRequest } from '../types';

export function chargedPromptTokens(r: Pick<GenerationRequest, 'promptIds' | 'continues'>): number {
  return r.promptIds.length - (r.continues ? r.continues.promptTokens + r.continues.generatedTokens : 0);
}
