/**
 * Incremental stop-string detection: the decoded text grows by a small window decode per token
 * instead of decoding the whole output every step (which made stop strings O(T²)).
 *
 * Tokens do not decode independently (a UTF-8 character split over byte tokens, a SentencePiece
 * word's leading space dropped at the start of a text), so each step decodes the tokens from
 * `prefixStart` on and takes what lies beyond the decode of the tokens up to `readStart`, the same
 * window on both sides. That text is committed only when it does not end in U+FFFD (an incomplete
 * character, or stray bytes), so every commit ends on a character boundary and the committed text
 * is exactly a prefix of the full decode; the uncommitted rest is searched too. Only that rest
 * plus the longest stop string's length minus one is searched, and a hit is cut from the full
 * decode, so the result is exactly what decoding everything every step gave.
 */
export class StopDetector {
  private text = '';
  private prefixStart = 0;
  private readStart = 0;
  private readonly longest: number;

  constructor(private readonly stops: readonly string[], private readonly decode: (ids: readonly number[]) => string) {
    this.longest = Math.max(0, ...stops.map((s) => s.length));
  }

  /** Call after each new token; returns the output text cut at the earliest stop string, or null. */
  push(tokens: readonly number[]): string | null {
    if (this.longest === 0) return null;
    const before = this.decode(tokens.slice(this.prefixStart, this.readStart));
    const now = this.decode(tokens.slice(this.prefixStart));
    const pending = now.length > before.length ? now.slice(before.length) : '';
    const tail = this.text.slice(Math.max(0, this.text.length - this.longest + 1)) + pending;
    if (pending && !now.endsWith('\uFFFD')) {
      this.text += pending;
      this.prefixStart = this.readStart;
      this.readStart = tokens.length;
    }
    if (!this.stops.some((s) => s && tail.includes(s))) return null;
    return cutAtStop(this.decode(tokens), this.stops);
  }
}

/** Cuts `text` at the earliest stop string; null when none occurs. */
export function cutAtStop(text: string, stops: readonly string[]): string | null {
  let cut = -1;
  for (const s of stops) {
    if (!s) continue;
    const at = text.indexOf(s);
    if (at >= 0 && (cut < 0 || at < cut)) cut = at;
  }
  return cut < 0 ? null : text.slice(0, cut);
}
