/**
 * The added tokens of a model folder's `tokenizer.json` that decoding keeps in the text (those not
 * marked special, which decoding skips): the only ones an output can show, such as Qwen3's and
 * DeepSeek-R1's `<think>` and `</think>`.
 */
import * as path from 'node:path';
import { readJsonObject } from '../checkpoint/config';

export function keptAddedTokens(dir: string): string[] {
  const json = readJsonObject(path.join(dir, 'tokenizer.json'), true, 'a Hugging Face tokenizers tokenizer.json');
  const added = json?.added_tokens;
  if (!Array.isArray(added)) return [];
  return added.flatMap((t: unknown) => {
    if (typeof t !== 'object' || t === null) return [];
    const { content, special } = t as { content?: unknown; special?: unknown };
    return typeof content === 'string' && special !== true ? [content] : [];
  });
}
