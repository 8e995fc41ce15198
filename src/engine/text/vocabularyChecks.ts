/**
 * Checks on a tokenizer.json's vocabulary made before the tokenizer library builds anything: a
 * file far larger than the model's vocabulary can need is refused from its size alone, before it
 * is read; a vocabulary with more entries than the model's embedding has rows is refused while it
 * is still a count (building a 5,000,000-entry one took 51 s and 1.9 GB before the old check saw
 * its ids); and
 * added tokens that collide — one string under two ids, or one id under two strings — are refused,
 * since which id a prompt gets, or which string an id decodes to, would depend on the library's
 * order. An added token whose string is also in the model's vocabulary under another id is allowed:
 * the library matches added tokens first, so encoding gives the added token's id, and both ids
 * decode to the same text (docs/design/data-in-data-out.md "Tokenizers that collide or overflow").
 */
import * as fs from 'node:fs';
import { InputError } from '../../common';

type Json = Record<string, unknown>;

/**
 * The most bytes a tokenizer.json may take for a model with `vocabSize` embedding rows: 2 KiB a row
 * (real files take 40–130 bytes: a vocabulary entry, a merge, added tokens) plus 16 MiB for the
 * rest (a Unigram model's precompiled character map is the largest part seen, under 1 MiB).
 */
export const tokenizerBytesBound = (vocabSize: number) => 16 * 1024 * 1024 + 2048 * vocabSize;

/** Refuses, from its size alone, a tokenizer.json larger than the bound above (before reading it). */
export function refuseOversizedTokenizerFile(tokenizerFile: string, vocabSize: number, configFile: string): void {
  let size: number;
  try {
    size = fs.statSync(tokenizerFile).size;
  } catch {
    return; // a missing file is the reader's to report
  }
  const bound = tokenizerBytesBound(vocabSize);
  if (size > bound) {
    throw new InputError(
      `${tokenizerFile}: ${size.toLocaleString('en-US')} bytes, more than a tokenizer for the model's ${vocabSize.toLocaleString('en-US')} embedding rows can need ` +
        `(vocab_size in ${configFile}; bound ${bound.toLocaleString('en-US')} bytes: 2 KiB a row + 16 MiB); refused before reading it. ` +
        'Expected the tokenizer saved with this model (name the folder that holds it with --tokenizer-from DIR)',
    );
  }
}

/** Entries of a plain object, counted without building its key list; stops once past `limit`. */
function countEntries(value: Json, limit: number): number {
  let n = 0;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (++n > limit) break;
  }
  return n;
}

/**
 * Refuses a vocabulary with more entries than the model has embedding rows (`vocabSize`): every
 * entry needs its own id below it. Names the file, the field and the bound.
 */
export function refuseOversizedVocabulary(tokenizerFile: string, tokenizerJson: Json, vocabSize: number, configFile: string): void {
  const model = tokenizerJson.model as Json;
  const vocab = model.vocab;
  const count = Array.isArray(vocab) ? vocab.length : typeof vocab === 'object' && vocab !== null ? countEntries(vocab as Json, vocabSize) : 0;
  const added = Array.isArray(tokenizerJson.added_tokens) ? tokenizerJson.added_tokens.length : 0;
  if (count > vocabSize) {
    throw new InputError(
      `${tokenizerFile}: field model.vocab has ${Array.isArray(vocab) ? count.toLocaleString('en-US') : `more than ${vocabSize.toLocaleString('en-US')}`} entries, more than the model's ${vocabSize.toLocaleString('en-US')} embedding rows (vocab_size in ${configFile}); ` +
        'expected the tokenizer saved with this model (name the folder that holds it with --tokenizer-from DIR)',
    );
  }
  if (added > vocabSize) {
    throw new InputError(`${tokenizerFile}: field added_tokens has ${added.toLocaleString('en-US')} entries, more than the model's ${vocabSize.toLocaleString('en-US')} embedding rows (vocab_size in ${configFile}); expected the tokenizer saved with this model`);
  }
}

/** Refuses added tokens that give one string two ids, or one id two strings, naming both entries. */
export function refuseCollidingAddedTokens(tokenizerFile: string, tokenizerJson: Json): void {
  const added = tokenizerJson.added_tokens;
  if (!Array.isArray(added)) return;
  const byContent = new Map<string, { index: number; id: number }>();
  const byId = new Map<number, { index: number; content: string }>();
  added.forEach((t: unknown, index) => {
    if (typeof t !== 'object' || t === null) return;
    const { content, id } = t as { content?: unknown; id?: unknown };
    if (typeof content !== 'string' || typeof id !== 'number') return;
    const sameContent = byContent.get(content);
    if (sameContent && sameContent.id !== id) {
      throw new InputError(
        `${tokenizerFile}: added_tokens[${sameContent.index}] and added_tokens[${index}] are both ${JSON.stringify(content)}, with ids ${sameContent.id} and ${id}; ` +
          'which id a prompt gets would depend on the tokenizer library\'s order: keep one entry per string (the id the model was trained with)',
      );
    }
    const sameId = byId.get(id);
    if (sameId && sameId.content !== content) {
      throw new InputError(
        `${tokenizerFile}: added_tokens[${sameId.index}] and added_tokens[${index}] both have id ${id}, as ${JSON.stringify(sameId.content)} and ${JSON.stringify(content)}; ` +
          'an id must decode to one string: keep one entry per id',
      );
    }
    byContent.set(content, { index, id });
    byId.set(id, { index, content });
  });
}
