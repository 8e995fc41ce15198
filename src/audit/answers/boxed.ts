/**
 * The `boxed` answer format used by MATH (design.md section 2): the answer is the content of the
 * last `\boxed{…}` (balanced braces; also `\fbox{…}` and the brace-less `\boxed 5`), compared after
 * a LaTeX normalization, and numerically when both sides parse as numbers.
 */
import { parseRational, rationalKey, rationalsEqual, type Rational } from './rational';

const BOX_COMMANDS = ['\\boxed', '\\fbox'];

/**
 * The content of the last `\boxed{…}` / `\fbox{…}` / `\boxed x` in the text, or null when there is
 * none or the last one is unterminated (a truncated output has no final answer yet).
 */
export function lastBoxed(text: string): string | null {
  let at = -1;
  let command = '';
  for (const c of BOX_COMMANDS) {
    let i = text.lastIndexOf(c);
    // Skip longer command names such as \fboxsep.
    while (i >= 0 && /[A-Za-z]/.test(text[i + c.length] ?? '')) i = text.lastIndexOf(c, i - 1);
    if (i > at) {
      at = i;
      command = c;
    }
  }
  if (at < 0) return null;
  let j = at + command.length;
  if (text[j] === '{') return balancedGroup(text, j);
  if (text[j] !== ' ') return null;
  // `\boxed 5$`: the token after the space, up to `$` or whitespace.
  while (text[j] === ' ') j++;
  const m = /^[^\s$]+/.exec(text.slice(j));
  return m ? m[0] : null;
}

/** The content of the `{…}` group opening at `open`, honouring `\{` and `\}`; null when unbalanced. */
function balancedGroup(text: string, open: number): string | null {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\') {
      i++; // an escaped character (\{, \}, \\) never opens or closes a group
      continue;
    }
    if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return text.slice(open + 1, i);
    }
  }
  return null;
}

/** Replaces every `\command{arg}` with `arg` (balanced braces), e.g. \text{cm} → cm. */
function unwrapCommand(s: string, command: string): string {
  const needle = `\\${command}{`;
  let at = s.indexOf(needle);
  while (at >= 0) {
    const inner = balancedGroup(s, at + needle.length - 1);
    if (inner === null) break;
    s = s.slice(0, at) + inner + s.slice(at + needle.length + inner.length + 1);
    at = s.indexOf(needle, at);
  }
  return s;
}

/** `\frac12` → `\frac{1}{2}`, `\frac1{2}` → `\frac{1}{2}`, `\frac{1}2` → `\frac{1}{2}`. */
function braceFracArguments(s: string): string {
  return s
    .replace(/\\frac\s*([0-9a-zA-Z])\s*([0-9a-zA-Z])/g, '\\frac{$1}{$2}')
    .replace(/\\frac\s*([0-9a-zA-Z])\s*\{/g, '\\frac{$1}{')
    .replace(/\\frac\{([^{}]*)\}\s*([0-9a-zA-Z])/g, '\\frac{$1}{$2}');
}

/**
 * The normal form used for string comparison. Written from the MATH conventions (Hendrycks et al.
 * and the Minerva normalizer): spacing commands, `\left`/`\right`, `\dfrac`/`\tfrac`, degrees,
 * percent and dollar signs, trailing unit text, `x =` prefixes, trailing `.0` and all whitespace
 * are presentation, not answer.
 */
export function normalizeBoxed(answer: string): string {
  let s = answer.trim();
  const boxed = lastBoxed(s);
  if (boxed !== null) s = boxed;
  s = s.replace(/\n/g, ' ');
  s = s.replace(/\\[!,;:]/g, '').replace(/\\ /g, ' ').replace(/~/g, ' ');
  s = s.replace(/\\(?:displaystyle|textstyle)\b/g, '');
  s = s.replace(/\\[dt]frac/g, '\\frac');
  s = s.replace(/\\left\b|\\right\b|\\bigl\b|\\bigr\b|\\Bigl\b|\\Bigr\b/g, '');
  s = s.replace(/\^\s*\{\s*\\circ\s*\}|\^\s*\\circ\b|\\circ\b|°/g, '');
  s = s.replace(/\\?%/g, '');
  s = s.replace(/\\\$|\$/g, '');
  // A unit after the value ("10\text{ cm}", "5 \mbox{inches}") is dropped; a lone \text{…} is unwrapped.
  s = s.replace(/^(.*\S)\s*\\(?:text|mbox|mathrm)\{\s*[A-Za-z][A-Za-z\s.^0-9]*\}(\^\{?\d\}?)?\s*$/, '$1');
  for (const c of ['text', 'textbf', 'mathbf', 'mathrm', 'mbox', 'textit', 'mathit']) s = unwrapCommand(s, c);
  s = s.replace(/\s+/g, '');
  s = braceFracArguments(s);
  s = s.replace(/\\sqrt([0-9a-zA-Z])/g, '\\sqrt{$1}');
  // "x=5", "k = 3/4": a short left-hand side names the variable, not the answer.
  s = s.replace(/^[A-Za-z](?:_\{?[A-Za-z0-9]\}?)?=(?!=)/, '');
  s = s.replace(/\.$/, '');
  // Numbers: thousands commas, leading ".5", trailing ".0".
  // Commas only when the whole answer is one number ("1,000"), never in tuples like "(2,100)".
  if (/^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(s)) s = s.replace(/,/g, '');
  s = s.replace(/(^|[^\d])\.(\d)/g, '$10.$2');
  s = s.replace(/(\d)\.0+(?!\d)/g, '$1');
  s = s.replace(/(\d\.\d*?[1-9])0+(?!\d)/g, '$1');
  // A simple a/b written inline means \frac{a}{b}.
  s = s.replace(/^(-?\d+)\/(\d+)$/, '\\frac{$1}{$2}');
  return s;
}

/** Parses a normalized boxed answer as a number: 5, -2.5, \frac{1}{2}, -\frac{3}{4}, \frac{-3}{4}, 3/4. */
export function parseBoxedNumber(normalized: string): Rational | null {
  const frac = /^(-?)\\frac\{(-?[\d.]+)\}\{(-?[\d.]+)\}$/.exec(normalized);
  if (frac) {
    const r = parseRational(`${frac[2]}/${frac[3]}`);
    if (!r) return null;
    return frac[1] === '-' ? { num: -r.num, den: r.den } : r;
  }
  if (!/^[-+]?[\d.]+(?:\/[\d.]+)?$/.test(normalized)) return null;
  return parseRational(normalized);
}

export function boxedEqual(a: string, b: string): boolean {
  const na = normalizeBoxed(a);
  const nb = normalizeBoxed(b);
  const ra = parseBoxedNumber(na);
  const rb = parseBoxedNumber(nb);
  if (ra && rb) return rationalsEqual(ra, rb);
  return na === nb;
}

/** Canonical key: the reduced rational when the answer is a number, else the normalized string. */
export function boxedKey(answer: string): string {
  const n = normalizeBoxed(answer);
  const r = parseBoxedNumber(n);
  return r ? rationalKey(r) : n;
}

/**
 * Fallback when an output has no box: Minerva-style "Final Answer: The final answer is X." or
 * "The answer is X." — the text after the last such phrase up to the end of its sentence.
 */
export function extractFinalAnswerPhrase(output: string): string | null {
  const re = /(?:final answer is|final answer:|the answer is)\s*:?\s*/gi;
  let last: RegExpExecArray | null = null;
  for (let m = re.exec(output); m; m = re.exec(output)) last = m;
  if (!last) return null;
  let rest = output.slice(last.index + last[0].length);
  rest = rest.split(/\n|\.\s|I hope it is correct/)[0];
  rest = rest.trim().replace(/\.$/, '').trim();
  if (rest.startsWith('$') && rest.endsWith('$') && rest.length > 1) rest = rest.replace(/^\$+|\$+$/g, '');
  return rest === '' ? null : rest;
}
