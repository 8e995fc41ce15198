/**
 * The fewest tokens a text can encode to, known from its length alone — so that a prompt that
 * cannot fit the context is refused before the tokenizer runs (tokenizing a 50 MB question took
 * minutes and gigabytes, or failed inside the tokenizer library).
 *
 * A BPE token stands for at most `maxTokenBytes` bytes of the text it was cut from (its string's
 * bytes; for byte-level vocabularies one character per byte). What reaches the model can be
 * shorter than the input only through the normalizer: Unicode normalization and lowercasing map a
 * code point (at most 4 bytes in UTF-8) to at least one byte, and compose at most a few code
 * points into one, so they shrink a text at most 4 times. Anything that can delete text without
 * such a bound (strip, accent stripping, a replacement by something shorter, a pre-tokenizer that
 * drops whitespace, an unknown-token that swallows a run of characters, other tokenizer models)
 * gives no bound, and the prompt is simply tokenized as before.
 */
import { isObject } from '../../contract';

type Json = Record<string, unknown>;

/** How many times a normalizer can shrink a text's UTF-8 bytes; undefined when unbounded or unknown. */
function normalizerShrink(n: unknown): number | undefined {
  if (n === null || n === undefined) return 1;
  if (!isObject(n)) return undefined;
  switch (n.type) {
    case 'NFC':
    case 'NFD':
    case 'NFKC':
    case 'NFKD':
    case 'Lowercase':
      return 4;
    case 'Prepend':
      return 1;
    case 'Replace': {
      // Only a plain string replaced by one at least as long keeps the length.
      const pattern = isObject(n.pattern) ? n.pattern.String : undefined;
      if (typeof pattern !== 'string' || typeof n.content !== 'string') return undefined;
      return Buffer.byteLength(n.content) >= Buffer.byteLength(pattern) ? 1 : undefined;
    }
    case 'Sequence': {
      if (!Array.isArray(n.normalizers)) return undefined;
      let shrink = 1;
      for (const inner of n.normalizers) {
        const s = normalizerShrink(inner);
        if (s === undefined) return undefined;
        shrink *= s;
      }
      return shrink;
    }
    default:
      return undefined;
  }
}

/** Whether a pre-tokenizer keeps every byte (splits and maps text, never drops any). */
function preTokenizerKeepsText(p: unknown): boolean {
  if (p === null || p === undefined) return true;
  if (!isObject(p)) return false;
  switch (p.type) {
    case 'ByteLevel':
    case 'Metaspace':
    case 'Digits':
    case 'Punctuation':
      return true;
    case 'Split':
      return p.behavior !== 'Removed';
    case 'Sequence':
      return Array.isArray(p.pretokenizers) && p.pretokenizers.every(preTokenizerKeepsText);
    default:
      return false;
  }
}

function usesByteLevel(p: unknown): boolean {
  if (!isObject(p)) return false;
  if (p.type === 'ByteLevel') return true;
  return p.type === 'Sequence' && Array.isArray(p.pretokenizers) && p.pretokenizers.some(usesByteLevel);
}

/**
 * Input bytes one token can stand for, at most, after accounting for the normalizer; undefined
 * when this tokenizer gives no such bound. `vocab` holds every token string (added tokens too).
 */
export function bytesPerTokenBound(tokenizerJson: Json, vocab: Iterable<string | undefined>, addedTokens: Iterable<string>): number | undefined {
  const model = tokenizerJson.model;
  if (!isObject(model) || model.type !== 'BPE') return undefined;
  // A fused unknown token stands for a whole run of unknown characters, unless bytes fall back.
  if (model.fuse_unk === true && model.unk_token !== null && model.unk_token !== undefined && model.byte_fallback !== true) return undefined;
  const shrink = normalizerShrink(tokenizerJson.normalizer);
  if (shrink === undefined || !preTokenizerKeepsText(tokenizerJson.pre_tokenizer)) return undefined;
  const byteLevel = usesByteLevel(tokenizerJson.pre_tokenizer);
  // An unknown character becomes one token (unknown-token or bytes): a code point is at most 4 bytes.
  let most = 4;
  // Byte-level vocabularies spell one byte as one character; other strings are measured in bytes.
  for (const token of vocab) {
    // The tokenizers library's vocabulary map can hold an undefined key (measured: the bench's
    // random byte-level tokenizer gives 260 keys, one undefined); it spells no text.
    if (typeof token !== 'string') continue;
    most = Math.max(most, byteLevel ? [...token].length : Buffer.byteLength(token));
  }
  for (const token of addedTokens) most = Math.max(most, Buffer.byteLength(token));
  return most * shrink;
}

/** The fewest tokens `text` can encode to under that bound (0 when there is none). */
export function tokensAtLeast(text: string, bytesPerToken: number | undefined): number {
  return bytesPerToken === undefined ? 0 : Math.ceil(Buffer.byteLength(text, 'utf8') / bytesPerToken);
}
