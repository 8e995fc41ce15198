/**
 * Exact rational numbers on BigInt, so that numeric answers compare without float rounding:
 * "1,000" = "1000" = "1000.00", "0.5" = ".5" = "1/2", "-3" ≠ "3".
 */

export interface Rational {
  /** Numerator; carries the sign. */
  num: bigint;
  /** Denominator, always > 0; the fraction is reduced. */
  den: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function makeRational(num: bigint, den: bigint): Rational {
  if (den === 0n) throw new RangeError('rational with zero denominator');
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const g = gcd(num, den);
  return g > 1n ? { num: num / g, den: den / g } : { num, den };
}

// Sign, integer part (may be empty when there is a fraction part), fraction part, exponent.
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

const THOUSANDS = /^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?(?:[eE][+-]?\d+)?$/;

/** "1 600", "12 345.5": digits grouped by threes with a space, thin space or no-break space. */
const SPACED_THOUSANDS = /^[+-]?\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+(?:\.\d+)?$/;

/** The source of one space-grouped number inside text, for the readers of stated answers. */
export const SPACED_NUMBER_SOURCE = String.raw`\d{1,3}(?:[ \u00a0\u2009\u202f]\d{3})+(?:\.\d+)?(?![\d,])`;

/** Exponents beyond this are not answers but garbage; refusing them keeps BigInt work bounded. */
const MAX_EXPONENT = 400;

function parseDecimal(s: string): Rational | null {
  const m = DECIMAL.exec(s);
  if (!m) return null;
  const [, sign, int, frac = '', exp] = m;
  if (int === '' && frac === '') return null;
  let num = BigInt((int || '0') + frac);
  let den = 10n ** BigInt(frac.length);
  if (exp !== undefined) {
    const e = Number(exp);
    if (Math.abs(e) > MAX_EXPONENT) return null;
    if (e >= 0) num *= 10n ** BigInt(e);
    else den *= 10n ** BigInt(-e);
  }
  if (sign === '-') num = -num;
  return makeRational(num, den);
}

/**
 * Parses a plain numeric answer: optional sign, `$`, thousands commas (groups of three only),
 * decimals, an exponent, `a/b` fractions, a trailing `%` or `.`. Returns null for anything else
 * (words, LaTeX, ranges, misplaced commas such as "1,00").
 */
export function parseRational(text: string): Rational | null {
  let s = text.trim().replace(/[\u2212\u2013]/g, '-'); // unicode minus / en dash used as minus
  s = s.replace(/\.$/, ''); // sentence period: "is 18."
  s = s.replace(/%$/, '');
  s = s.replace(/^([+-]?)\s*\$\s*/, '$1').replace(/^([+-])\s+/, '$1'); // "$ 5", "- $5"
  s = s.replace(/\$/g, '');
  // Commas only as thousands separators: "1,000" and "12,345.5", never "1,00" or "1,0000".
  if (s.split('/').some((part) => part.includes(',') && !THOUSANDS.test(part))) return null;
  s = s.replace(/,/g, '');
  // A space (or a thin or no-break space) as thousands separator, in groups of exactly three: "1 600".
  if (SPACED_THOUSANDS.test(s)) s = s.replace(/[ \u00a0\u2009\u202f]/g, '');
  if (/\s/.test(s)) return null; // "1 2" is two numbers, not 12
  if (s === '' || s.length > 1000) return null;
  const slash = s.indexOf('/');
  if (slash >= 0) {
    if (s.indexOf('/', slash + 1) >= 0) return null;
    const a = parseDecimal(s.slice(0, slash));
    const b = parseDecimal(s.slice(slash + 1));
    if (!a || !b || b.num === 0n) return null;
    return makeRational(a.num * b.den, a.den * b.num);
  }
  return parseDecimal(s);
}

export function rationalsEqual(a: Rational, b: Rational): boolean {
  return a.num * b.den === b.num * a.den;
}

/** Canonical key: "1000", "-3", "1/2" (reduced). */
export function rationalKey(r: Rational): string {
  return r.den === 1n ? r.num.toString() : `${r.num}/${r.den}`;
}
