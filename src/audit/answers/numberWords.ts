/**
 * Whole numbers written as English words ("five", "twenty-one", "one hundred"), as models state
 * counts: read by rule, 0 to 999,999, so that "The answer is seven." is 7. Anything else — "a few",
 * "half", ordinals — is not a number word.
 */
const UNITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/** Below 100: "seven", "twenty", "twenty-one", "twenty one". */
function belowHundred(words: readonly string[]): number | null {
  if (words.length === 1) {
    const u = UNITS.indexOf(words[0]);
    if (u >= 0) return u;
    const t = TENS.indexOf(words[0]);
    return t >= 2 ? t * 10 : null;
  }
  if (words.length === 2) {
    const t = TENS.indexOf(words[0]);
    const u = UNITS.indexOf(words[1]);
    return t >= 2 && u >= 1 && u <= 9 ? t * 10 + u : null;
  }
  return null;
}

/** Below 1000: "<units> hundred [and] <below hundred>". */
function belowThousand(words: readonly string[]): number | null {
  const at = words.indexOf('hundred');
  if (at < 0) return words.length === 0 ? null : belowHundred(words);
  const head = at === 1 && words[0] === 'a' ? 1 : belowHundred(words.slice(0, at));
  if (head === null || head < 1 || head > 9) return null;
  let rest = words.slice(at + 1);
  if (rest[0] === 'and') rest = rest.slice(1);
  if (rest.length === 0) return head * 100;
  const tail = belowHundred(rest);
  return tail === null || tail === 0 ? null : head * 100 + tail;
}

/** The number a phrase of number words names, or null when it is not one. */
export function numberFromWords(text: string): number | null {
  const words = text.trim().toLowerCase().replace(/[.!]$/, '').split(/[\s-]+/).filter((w) => w !== '');
  if (words.length === 0 || words.length > 8) return null;
  const at = words.indexOf('thousand');
  if (at < 0) return belowThousand(words);
  const head = at === 1 && words[0] === 'a' ? 1 : belowThousand(words.slice(0, at));
  if (head === null || head < 1) return null;
  let rest = words.slice(at + 1);
  if (rest[0] === 'and') rest = rest.slice(1);
  if (rest.length === 0) return head * 1000;
  const tail = belowThousand(rest);
  return tail === null || tail === 0 ? null : head * 1000 + tail;
}

/** A regular-expression source matching one number-word phrase (checked by numberFromWords). */
export const NUMBER_WORDS_SOURCE = String.raw`(?:(?:${[...UNITS, ...TENS.slice(2), 'hundred', 'thousand', 'and', 'a'].join('|')})(?:[\s-]+|(?![A-Za-z]))){1,8}`;
