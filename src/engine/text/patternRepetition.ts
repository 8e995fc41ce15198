/**
 * Tokenizer patterns that can take exponential time. A tokenizer.json's pre-tokenizer `Split`,
 * its normalizer `Replace` and its decoder carry regular expressions that the tokenizer library
 * runs with JavaScript's backtracking engine on every prompt and output: a pattern that repeats a
 * group which itself repeats (`(a+)+`, star height above one) tries every way of dividing a run of
 * characters between the two repetitions, and took 3.9 s at 20 characters, 22.8 s at 26, past a
 * minute at 30. A running match cannot be interrupted, so such patterns are refused before the
 * tokenizer is built. Real tokenizers' patterns (GPT-2, Llama-3, Qwen2, DeepSeek) repeat only
 * single characters, classes and escapes, and pass.
 *
 * A repeated group whose alternatives can begin with the same character (`(a|a)*`, `(a|ab)+`,
 * `(\w|\d)*`) is exponential the same way (each character can go to either alternative) and is
 * refused too; the test is on each alternative's first atom (a literal, an escape class, a simple
 * bracket class or `.`), so alternatives that start apart (`(\d|,)+`) pass. Adjacent repetitions
 * that overlap (Llama-3's own `\s*[\r\n]+`) cost time quadratic in a run of characters, not
 * exponential, and are left alone.
 */

interface Group {
  /**
   * Whether anything inside the group repeats a varying number of times (a quantifier whose
   * maximum is above one and above its minimum): an exact count (`\d{3}`) divides a run one way only.
   */
  repeats: boolean;
  /** Where the group opened, for the message. */
  at: number;
  /** Where its body starts (after `(`, `(?:`, …). */
  body: number;
}

/** Where a pattern repeats a group that itself repeats, as the group's text; null when it does not. */
export function nestedRepetition(pattern: string): string | null {
  const stack: Group[] = [{ repeats: false, at: 0, body: 0 }];
  // The last atom read: whether it repeats inside, and where it started (for a group, its '(').
  let last: { repeats: boolean; at: number; alternatives?: string[] } | null = null;
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === '\\') {
      const start = i;
      i += 2;
      // \p{L}, \u{1F600}, \x{41}: the braces belong to the escape, not to a quantifier.
      if (pattern[i] === '{' && /[pPux]/.test(pattern[i - 1])) {
        const close = pattern.indexOf('}', i);
        i = close < 0 ? pattern.length : close + 1;
      }
      last = { repeats: false, at: start };
    } else if (ch === '[') {
      const start = i;
      i = classEnd(pattern, i);
      last = { repeats: false, at: start };
    } else if (ch === '(') {
      const body = groupBodyStart(pattern, i);
      stack.push({ repeats: false, at: i, body });
      i = body;
      last = null;
    } else if (ch === ')') {
      const group = stack.length > 1 ? stack.pop()! : { repeats: false, at: i, body: i };
      last = { repeats: group.repeats, at: group.at, alternatives: topLevelAlternatives(pattern.slice(group.body, i)) };
      i++;
      stack[stack.length - 1].repeats ||= group.repeats;
    } else if (ch === '|') {
      i++;
      last = null;
    } else {
      const q = quantifierAt(pattern, i);
      if (q && last) {
        if (q.max > 1 && last.repeats) return pattern.slice(last.at, q.end);
        if (q.max > 1 && last.alternatives && alternativesOverlap(last.alternatives)) return pattern.slice(last.at, q.end);
        if (q.max > 1 && q.max > q.min) stack[stack.length - 1].repeats = true;
        i = q.end;
        last = null;
      } else {
        last = { repeats: false, at: i };
        i++;
      }
    }
  }
  return null;
}

/** A group body split at its own `|` (not those inside nested groups or classes). */
function topLevelAlternatives(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '\\') i++;
    else if (ch === '[') i = classEnd(body, i) - 1;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === '|' && depth === 0) {
      out.push(body.slice(start, i));
      start = i + 1;
    }
  }
  out.push(body.slice(start));
  return out;
}

/** The characters an alternative's first atom matches, as a test; null when it is not a simple atom (a group, an anchor). */
function firstAtom(alternative: string): ((c: string) => boolean) | 'any' | null {
  const ch = alternative[0];
  if (ch === undefined || ch === '(' || ch === '^' || ch === '$') return null;
  if (ch === '.') return 'any';
  if (ch === '\\') {
    const e = alternative[1];
    const classes: Record<string, RegExp> = { d: /\d/, w: /\w/, s: /\s/, D: /\D/, W: /\W/, S: /\S/ };
    if (e in classes) return (c) => classes[e].test(c);
    if (e === 'p' || e === 'P' || e === 'u' || e === 'x' || e === undefined || /[0-9bB]/.test(e)) return null;
    return (c) => c === e;
  }
  if (ch === '[') {
    const end = classEnd(alternative, 0);
    let re: RegExp;
    try {
      re = new RegExp(alternative.slice(0, end), 'u');
    } catch {
      return null;
    }
    return (c) => re.test(c);
  }
  return (c) => c === ch;
}

/** Characters tried when comparing two first atoms: printable ASCII, whitespace, and one letter beyond it. */
const PROBE_CHARACTERS = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), '\t', '\n', '\r', 'é', '中'];

/** Whether two alternatives of one group can begin with the same character (so a repetition of the group can split a run both ways). */
function alternativesOverlap(alternatives: readonly string[]): boolean {
  if (alternatives.length < 2) return false;
  const atoms = alternatives.map(firstAtom);
  for (let a = 0; a < atoms.length; a++) {
    for (let b = a + 1; b < atoms.length; b++) {
      const x = atoms[a];
      const y = atoms[b];
      if (x === null || y === null) continue;
      if (x === 'any' || y === 'any') return true;
      if (PROBE_CHARACTERS.some((c) => x(c) && y(c))) return true;
    }
  }
  return false;
}

/** The index after the character class opening at `open` (its first `]` that is not escaped or first). */
function classEnd(pattern: string, open: number): number {
  let i = open + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
  return i + 1;
}

/** The index where a group's body starts: after `(`, `(?:`, `(?i:`, `(?=`, `(?<!`, `(?<name>`… */
function groupBodyStart(pattern: string, open: number): number {
  let i = open + 1;
  if (pattern[i] !== '?') return i;
  i++;
  if (pattern[i] === '<' && pattern[i + 1] !== '=' && pattern[i + 1] !== '!') {
    const close = pattern.indexOf('>', i);
    return close < 0 ? pattern.length : close + 1;
  }
  if (pattern[i] === '<') return i + 2;
  while (i < pattern.length && /[a-zA-Z-]/.test(pattern[i])) i++;
  return pattern[i] === ':' || pattern[i] === '=' || pattern[i] === '!' ? i + 1 : i;
}

/** The quantifier at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, with a lazy or possessive mark), or null. */
function quantifierAt(pattern: string, i: number): { min: number; max: number; end: number } | null {
  const ch = pattern[i];
  let min: number;
  let max: number;
  let end: number;
  if (ch === '*' || ch === '+') {
    min = ch === '*' ? 0 : 1;
    max = Infinity;
    end = i + 1;
  } else if (ch === '?') {
    min = 0;
    max = 1;
    end = i + 1;
  } else if (ch === '{') {
    const m = /^\{(\d*)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
    if (!m || (m[1] === '' && m[3] === undefined)) return null;
    min = Number(m[1]);
    max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    end = i + m[0].length;
  } else {
    return null;
  }
  if (pattern[end] === '?' || pattern[end] === '+') end++;
  return { min, max, end };
}

/** A pattern found in a tokenizer.json: where (a field path) and its text. */
export interface TokenizerPattern {
  field: string;
  pattern: string;
}

/**
 * The regular expressions a tokenizer.json's normalizer, pre-tokenizer, post-processor and decoder
 * carry (`{"Regex": ...}` objects, at any depth of their Sequences), with their field paths.
 * The model (vocabulary, merges) and the added tokens carry none, and are not walked.
 */
export function tokenizerPatterns(tokenizerJson: Record<string, unknown>): TokenizerPattern[] {
  const found: TokenizerPattern[] = [];
  const walk = (value: unknown, field: string): void => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => walk(v, `${field}[${i}]`));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'Regex' && typeof inner === 'string') found.push({ field: `${field}.Regex`, pattern: inner });
        else walk(inner, `${field}.${key}`);
      }
    }
  };
  for (const part of ['normalizer', 'pre_tokenizer', 'post_processor', 'decoder']) walk(tokenizerJson[part], part);
  return found;
}
