/**
 * Whether a question is one of its prompt's worked examples, by a hash of its normalized text:
 * case, whitespace and punctuation do not count, so a test line that differs from an example only
 * in spacing, capitals or a stray comma is still recognised (an exact string match missed those).
 */
import { createHash } from 'node:crypto';

/** The text with case, whitespace and punctuation removed (after Unicode NFKC, so full-width forms and ligatures fold too). */
export function normalizedText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[\p{P}\p{Z}\s]+/gu, '');
}

/** SHA-256 of the normalized text, hex. */
export function normalizedTextHash(text: string): string {
  return createHash('sha256').update(normalizedText(text)).digest('hex');
}

/** Whether `asked` matches any of `examples` under the normalized-text hash. */
export function matchesExample(asked: string, examples: readonly string[]): boolean {
  // Without examples there is nothing to match: a 100 MB question was normalized (seconds, and
  // gigabytes of garbage) at each of its checks for nothing.
  if (examples.length === 0) return false;
  const hash = normalizedTextHash(asked);
  return examples.some((ex) => normalizedTextHash(ex) === hash);
}
