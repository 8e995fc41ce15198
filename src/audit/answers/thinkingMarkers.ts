/**
 * Which markers delimit a reasoning model's thought (docs/design/grading.md, thinking): given
 * with --thinking-markers, else the pair of tokens the model's tokenizer defines for it, else
 * `<think>` and `</think>` (DeepSeek-R1, Qwen3, QwQ).
 */
import { InputError } from '../../common';
import type { ThinkingMarkers } from '../../contract';
import { endsInThought } from './thoughtSplit';

export const DEFAULT_THINKING: ThinkingMarkers = { open: '<think>', close: '</think>', from: 'default', startsInThought: false };

// A token that names a thought: <think>, <thinking>, <|begin_of_thought|>, ◁think▷, <reasoning>…
const THOUGHT_WORD = /think|thought|reason/i;

/** The closing forms an opening token's partner may take: `</x>`, `<|/x|>`, `◁/x▷`, begin/start → end. */
function closingForms(open: string): string[] {
  const forms = [open.slice(0, 1) + '/' + open.slice(1)];
  if (open.startsWith('<|')) forms.push('<|/' + open.slice(2));
  const swapped = open.replace(/begin|start/i, (w) => (w[0] === w[0].toUpperCase() ? 'End' : 'end'));
  if (swapped !== open) forms.push(swapped);
  return forms;
}

/**
 * The thinking markers among a tokenizer's added tokens: the first token naming a thought whose
 * closing partner is also a token. Null when the tokenizer names none.
 */
export function thinkingMarkersIn(addedTokens: readonly string[]): { open: string; close: string } | null {
  const tokens = new Set(addedTokens);
  for (const open of addedTokens) {
    if (!THOUGHT_WORD.test(open) || /end|\//i.test(open)) continue;
    const close = closingForms(open).find((f) => f !== open && tokens.has(f));
    if (close) return { open, close };
  }
  return null;
}

/** `--thinking-markers OPEN,CLOSE`: two different, non-empty markers. */
export function parseThinkingMarkers(value: string): { open: string; close: string } {
  const parts = value.split(',');
  if (parts.length !== 2 || parts.some((p) => p.trim() === '') || parts[0].trim() === parts[1].trim()) {
    throw new InputError(`--thinking-markers ${value}: expected two different markers, OPEN,CLOSE (e.g. '<think>,</think>')`);
  }
  return { open: parts[0].trim(), close: parts[1].trim() };
}

/**
 * The run's markers: the flag's, else the tokenizer's, else the default; and whether the rendered
 * prompt leaves a thought open (a template that ends in the opening marker), so every output
 * starts inside it.
 */
export function runThinking(given: { open: string; close: string } | undefined, addedTokens: readonly string[], prompt: string): ThinkingMarkers {
  const found = given ? null : thinkingMarkersIn(addedTokens);
  const pair = given ?? found ?? DEFAULT_THINKING;
  const from: ThinkingMarkers['from'] = given ? 'flag' : found ? 'tokenizer' : 'default';
  return { open: pair.open, close: pair.close, from, startsInThought: endsInThought(prompt, pair) };
}
