/**
 * Where a file's bytes stop being UTF-8. Decoding replaces every invalid sequence with U+FFFD
 * silently; a dataset or model file saved as Latin-1 or cut mid-character would then be audited on
 * altered text, so readers report the first bad sequence (its line and byte offset) and how many
 * there are.
 */
import { isUtf8 } from 'node:buffer';
import { InputError } from './errors';

export interface InvalidUtf8 {
  /** Invalid sequences in the file (each becomes one U+FFFD). */
  count: number;
  /** 1-based line and 0-based byte offset (in the file) of the first. */
  line: number;
  byte: number;
}

/** Length of the valid sequence starting at i, or 0 when the bytes there are not UTF-8. */
function sequenceLength(b: Uint8Array, i: number): number {
  const x = b[i];
  if (x < 0x80) return 1;
  const cont = (j: number) => j < b.length && (b[j] & 0xc0) === 0x80;
  if (x >= 0xc2 && x <= 0xdf) return cont(i + 1) ? 2 : 0;
  if (x >= 0xe0 && x <= 0xef) {
    const y = b[i + 1];
    if (!cont(i + 1) || !cont(i + 2)) return 0;
    if ((x === 0xe0 && y < 0xa0) || (x === 0xed && y > 0x9f)) return 0; // overlong, surrogate
    return 3;
  }
  if (x >= 0xf0 && x <= 0xf4) {
    const y = b[i + 1];
    if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3)) return 0;
    if ((x === 0xf0 && y < 0x90) || (x === 0xf4 && y > 0x8f)) return 0; // overlong, past U+10FFFF
    return 4;
  }
  return 0;
}

/** null when every byte is UTF-8 (checked natively first: the scan runs only on a bad file). */
export function invalidUtf8(bytes: Uint8Array): InvalidUtf8 | null {
  if (isUtf8(bytes)) return null;
  let count = 0;
  let line = 1;
  let first: { line: number; byte: number } | null = null;
  for (let i = 0; i < bytes.length; ) {
    const n = sequenceLength(bytes, i);
    if (n > 0) {
      if (bytes[i] === 0x0a) line++;
      i += n;
      continue;
    }
    count++;
    if (!first) first = { line, byte: i };
    // Skip the bad lead byte and any continuation bytes after it: one replacement, as decoders do at most.
    i++;
    while (i < bytes.length && (bytes[i] & 0xc0) === 0x80) i++;
  }
  return first ? { count, ...first } : null;
}

/** "FILE: line L (byte B) is not UTF-8 …": the warning a reader gives. */
export function invalidUtf8Warning(file: string, bad: InvalidUtf8): string {
  return `${file}: line ${bad.line} (byte ${bad.byte}) is not valid UTF-8; ${bad.count} invalid byte sequence${bad.count === 1 ? '' : 's'} in the file ${bad.count === 1 ? 'was' : 'were'} read as U+FFFD (�), so those questions are audited on altered text. Save the file as UTF-8 (for example: iconv -f latin1 -t utf-8 FILE > FILE.utf8)`;
}

/**
 * The text of a file that must be UTF-8 (a model's JSON files, its chat template): decoded, or
 * refused naming the first bad sequence. JSON is UTF-8 by definition, and a template decoded with
 * U+FFFD would render prompts the model was never trained on.
 */
export function utf8TextOf(file: string, bytes: Buffer): string {
  const bad = invalidUtf8(bytes);
  if (bad) {
    throw new InputError(`${file}: line ${bad.line} (byte ${bad.byte}) is not valid UTF-8 (${bad.count} invalid byte sequence${bad.count === 1 ? '' : 's'} in the file); this file must be UTF-8: save it as UTF-8 (for example: iconv -f latin1 -t utf-8)`);
  }
  return bytes.toString('utf8');
}
