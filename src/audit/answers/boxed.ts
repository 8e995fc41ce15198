/**
 * The `boxed` answer format used by MATH (docs/design/grading.md): the answer is the content of the
 * last `\boxed{…}` (balanced braces; also `\fbox{…}` and the brace-less `\boxed 5`), compared after
 * a LaTeX normalization, and numerically when both sides parse as numbers.
 */
import { numberFromWords } from './numberWords';
import { parseRational, rationalKey, rationalsEqual, type Rational } from './rational';
import { symbolicEqual } from './symbolicEquality';

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
    // Skip longer command names such as \fboxsep. At 0 there is nothing earlier to look at:
    // lastIndexOf(c, -1) searches from 0 again and would find the same place for ever.
    while (i >= 0 && /[A-Za-z]/.test(text[i + c.length] ?? '')) i = i === 0 ? -1 : text.lastIndexOf(c, i - 1);
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

/** The text between two boxes of one final statement: "$ or $x=", "$ and $", ", ". */
const BOX_JOINT = /^[\s$,;]*(?:(?:or|and)\b[\s$]*)?(?:[A-Za-z](?:_\{?\w\}?)?\s*=\s*)?[\s$]*$/;

/**
 * Several answers boxed in one final statement — "$x=\boxed{2}$ or $x=\boxed{3}$", "$\boxed{1}$
 * and $\boxed{-2}$" — as one list "2, 3"; null unless the last box has boxed neighbours joined
 * to it only by commas, "or" / "and", `$` and an `x =`, and not all the same. Boxes further back
 * (intermediate results, a box in an earlier sentence) are not part of the answer.
 */
export function finalBoxes(text: string): string[] | null {
  const boxes: { start: number; end: number; content: string }[] = [];
  const re = /\\(?:boxed|fbox)(?![A-Za-z])\s*\{/g;
  for (const m of text.matchAll(re)) {
    const open = (m.index ?? 0) + m[0].length - 1;
    const content = balancedGroup(text, open);
    if (content === null) continue;
    boxes.push({ start: m.index ?? 0, end: open + content.length + 2, content: content.trim() });
  }
  if (boxes.length < 2) return null;
  const last = lastBoxed(text);
  if (last === null || last.trim() !== boxes[boxes.length - 1].content) return null;
  const run = [boxes[boxes.length - 1]];
  for (let i = boxes.length - 2; i >= 0; i--) {
    if (boxes[i].end > run[0].start || !BOX_JOINT.test(text.slice(boxes[i].end, run[0].start))) break;
    run.unshift(boxes[i]);
  }
  // The same answer boxed twice ("\boxed{5}, \boxed{5}") is that one answer, not a list.
  return new Set(run.map((b) => b.content)).size > 1 && run.every((b) => b.content !== '') ? run.map((b) => b.content) : null;
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

/** A unit written after the value: "10\text{ cm}", "9 \text{a.m.}", "5\mbox{ inches}^2". */
const TRAILING_UNIT = /^(.*\S)\s*\\(?:text|mbox|mathrm)\{\s*([A-Za-z][A-Za-z\s.^0-9]*)\}(\^\{?\d\}?)?\s*$/;

/**
 * A unit written bare after a numeric value ("10 cm", "5\sqrt{2} inches", "3 square units"): a word
 * of this list, after a value that ends in a digit, a closing brace or parenthesis, or `\pi`. Only
 * these words, so that a variable after a number (`2 x`) is never taken for a unit.
 */
const BARE_UNIT =
  /^(.*(?:\d|\}|\)|\\pi))\s*((?:square|sq\.?|cubic)\s+)?(cm|mm|km|meters?|metres?|centimeters?|centimetres?|millimeters?|kilometers?|inches|inch|in|feet|foot|ft|yards?|yd|miles?|mi|units?|degrees?|dollars?|cents?|hours?|hrs?|minutes?|mins?|seconds?|secs?|days?|weeks?|months?|years?|grams?|kg|pounds?|lbs?|ounces?|oz|liters?|litres?|ml|mph|people|students)(\^\{?[23]\}?)?\.?$/i;

/**
 * A one-atom ratio as a term of a sum, list or matrix: `\pi/2`, `2\pi/3`, `3/4`, `x/2` — the same
 * as `\frac{…}{…}`. Not after `^` or `_` (`a^2/b` is not `a^{2/b}`).
 */
const INLINE_RATIO = /(^|[-+=(,[{}&]|\\\\)(\d*\\[A-Za-z]+|\d+(?:\.\d+)?|[A-Za-z])\/(\d+|\\[A-Za-z]+|[A-Za-z])(?=$|[-+=),\]}&\\])/g;

/**
 * A boxed answer split into its value's normal form and its unit. The normal form follows the
 * MATH conventions (Hendrycks et al. and the Minerva normalizer): spacing commands, `\left` /
 * `\right`, `\dfrac` / `\tfrac`, degree, percent and dollar signs, `x =` prefixes, braces around
 * one-character sub- and superscripts, `{,}` digit grouping, trailing `.0` and all whitespace are
 * presentation, not answer. Matrix row separators `\\` are kept. The unit is kept apart, with
 * spaces and dots removed and case folded ("a.m." → "am"), so that different units stay different.
 */
export function boxedParts(answer: string): { value: string; unit: string; latex: string } {
  let s = answer.trim();
  const boxed = lastBoxed(s);
  if (boxed !== null) s = boxed;
  s = s.replace(/\n/g, ' ');
  // One pass, left to right, so that a row separator `\\` is read as a pair before `\ ` or `\,`.
  s = s.replace(/\\(\\|[!,;:]|\s)/g, (_m, c: string) => (c === '\\' ? '\\\\' : c.trim() === '' ? ' ' : ''));
  s = s.replace(/~/g, ' ');
  s = s.replace(/\\(?:displaystyle|textstyle)\b/g, '');
  s = s.replace(/\\[dt]frac/g, '\\frac');
  s = s.replace(/\\left\b|\\right\b|\\bigl\b|\\bigr\b|\\Bigl\b|\\Bigr\b/g, '');
  s = s.replace(/\^\s*\{\s*\\circ\s*\}|\^\s*\\circ\b|\\circ\b|°/g, '');
  s = s.replace(/\\?%/g, '');
  s = s.replace(/\\\$|\$/g, '');
  s = s.replace(/π/g, '\\pi ');
  let unit = '';
  const u = TRAILING_UNIT.exec(s);
  if (u) {
    s = u[1];
    unit = (u[2] + (u[3] ?? '')).replace(/[\s.{}]/g, '').toLowerCase();
  }
  for (const c of ['text', 'textbf', 'mathbf', 'mathrm', 'mbox', 'textit', 'mathit']) s = unwrapCommand(s, c);
  const bare = unit === '' ? BARE_UNIT.exec(s.trim()) : null;
  if (bare) {
    s = bare[1];
    unit = ((bare[2] ?? '') + bare[3] + (bare[4] ?? '')).replace(/[\s.{}]/g, '').toLowerCase();
  }
  // "five", "\text{twenty-one}": a whole number in words is that number.
  const spelled = numberFromWords(s);
  if (spelled !== null) s = String(spelled);
  // The library reads LaTeX whose command names still end where the writer ended them.
  const latex = s.trim();
  s = s.replace(/\s+/g, '');
  s = s.replace(/\{,\}/g, ',');
  s = s.replace(/([_^])\{([A-Za-z0-9])\}/g, '$1$2');
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
  s = s.replace(INLINE_RATIO, '$1\\frac{$2}{$3}');
  return { value: s, unit, latex: /^[A-Za-z](?:_\{?[A-Za-z0-9]\}?)?\s*=(?!=)/.test(latex) ? latex.replace(/^[^=]*=/, '').trim() : latex };
}

/** The normal form of a boxed answer's value (its unit, if any, left out; see boxedParts). */
export function normalizeBoxed(answer: string): string {
  return boxedParts(answer).value;
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

/** The parts compared: a multiple-choice label written "(C)" is the label C. */
function comparable(answer: string): { value: string; unit: string; latex: string } {
  const parts = boxedParts(answer);
  return { ...parts, value: parts.value.replace(/^\(([A-Za-z])\)$/, '$1') };
}

/** How two boxed answers compared: the rule that decided (recorded as the grade's `match`). */
export interface BoxedMatch {
  equal: boolean;
  /**
   * `normalized` (the same normal form), `rational` (the same number), `units-stripped` (either of
   * those once a unit was set apart), `number-word`, `unordered-set`, `symbolic` (the CAS), or
   * `different`.
   */
  rule: string;
  /** Why the CAS did not decide, when it was asked and did not (symbolicEquality.ts). */
  note?: string;
}

/** One value against another: normal form, number, then (when `cas`) the CAS. */
function matchOne(a: string, b: string, cas = true): BoxedMatch {
  const pa = comparable(a);
  const pb = comparable(b);
  if (pa.unit !== '' && pb.unit !== '' && pa.unit !== pb.unit) return { equal: false, rule: 'different' };
  const unitApart = pa.unit !== '' || pb.unit !== '';
  const plain = (rule: string): BoxedMatch => ({ equal: true, rule: unitApart ? 'units-stripped' : rule });
  const ra = parseBoxedNumber(pa.value);
  const rb = parseBoxedNumber(pb.value);
  if (ra && rb) {
    if (!rationalsEqual(ra, rb)) return { equal: false, rule: 'different' };
    return numberFromWords(textOf(a)) === null && numberFromWords(textOf(b)) === null ? plain('rational') : { equal: true, rule: 'number-word' };
  }
  if (pa.value === pb.value) return plain('normalized');
  if (!cas || pa.value === '' || pb.value === '') return { equal: false, rule: 'different' };
  const verdict = symbolicEqual(pa.latex, pb.latex);
  return verdict.equal ? { equal: true, rule: 'symbolic' } : { equal: false, rule: 'different', ...(verdict.note ? { note: verdict.note } : {}) };
}

/** The answer's text inside `\text{…}`-like wrappers, for telling a spelled number from digits. */
function textOf(answer: string): string {
  let s = answer;
  for (const c of ['text', 'textbf', 'mbox', 'mathrm']) s = unwrapCommand(s, c);
  return s.replace(/\$/g, '').trim();
}

/** A number grouped by commas (`2,220`, `2{,}220`, `10,\!080`): one value, never a list. */
const GROUPED_NUMBER = /^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;

/**
 * The elements of an answer that lists several values — "1, -2", "x = 4 \text{ or } x = -1",
 * "2 and 3", "\{1, 2\}" — split at top-level commas, semicolons and the words "or" / "and";
 * null for one value. Commas inside parentheses or brackets belong to a tuple or an interval,
 * whose order matters, so `(3, 4]` is one value.
 */
export function listElements(answer: string): string[] | null {
  let s = answer.trim();
  const boxed = lastBoxed(s);
  if (boxed !== null) s = boxed;
  s = s.replace(/\$/g, '').replace(/\\[!,;:]/g, (m) => (m === '\\,' ? ' ' : '')).replace(/\{,\}/g, ',').trim();
  if (GROUPED_NUMBER.test(s.replace(/\s+/g, ''))) return null;
  s = s.replace(/^\\\{(.*)\\\}$/, '$1');
  for (const c of ['text', 'textbf', 'mbox', 'mathrm']) s = unwrapCommand(s, c);
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if ('({['.includes(ch)) depth++;
    else if (')}]'.includes(ch)) depth--;
    else if (depth === 0) {
      const word = /^\s+(?:or|and)\s+/.exec(s.slice(i));
      if (ch === ',' || ch === ';' || word) {
        parts.push(s.slice(start, i));
        const skip = word ? word[0].length : 1;
        start = i + skip;
        i += skip - 1;
      }
    }
  }
  parts.push(s.slice(start));
  const elements = parts.map((p) => p.replace(/^\s*(?:or|and)\s+/, '').trim()).filter((p) => p !== '');
  return elements.length > 1 ? elements : null;
}

/** Both answers list values: the same values, each used once, in any order. */
function matchSets(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const unused = [...b];
  for (const x of a) {
    const at = unused.findIndex((y) => matchOne(x, y).equal);
    if (at < 0) return false;
    unused.splice(at, 1);
  }
  return true;
}

/**
 * How two boxed answers compare, and by which rule: equal values, and equal units when both sides
 * name one ("10" = "10\text{ cm}" = "10 cm", but "10\text{ cm}" ≠ "10\text{ m}" and "9\text{ a.m.}"
 * ≠ "9\text{ p.m.}"); lists of values as unordered sets ("1, -2" = "-2, 1"); otherwise the CAS.
 */
export function boxedMatch(a: string, b: string): BoxedMatch {
  const quick = matchOne(a, b, false);
  if (quick.equal) return quick;
  const la = listElements(a);
  const lb = listElements(b);
  if (la && lb) return matchSets(la, lb) ? { equal: true, rule: 'unordered-set' } : quick;
  return matchOne(a, b);
}

export function boxedEqual(a: string, b: string): boolean {
  return boxedMatch(a, b).equal;
}

/**
 * Canonical key: the reduced rational when the value is a number, else the normal form; then the
 * unit when there is one. (Equality ignores a unit that one side leaves out, which no key can
 * express: majority voting counts "10" and "10 cm" apart.)
 */
export function boxedKey(answer: string): string {
  const { value, unit } = comparable(answer);
  const r = parseBoxedNumber(value);
  const key = r ? rationalKey(r) : value;
  return unit === '' ? key : `${key} ${unit}`;
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
