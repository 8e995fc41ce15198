/**
 * The date a chat template sees. Llama 3.2 / 3.3 templates call `strftime_now("%d %b %Y")` for
 * their "Today Date:" line, so the same question renders another prompt on another day (and, with
 * @huggingface/jinja's own strftime_now, in another time zone or locale). A run therefore renders
 * every prompt with one recorded day (manifest deployment.templateDate), and strftime_now answers
 * with that day at 00:00 UTC in Python's C locale, whenever and wherever it is rendered.
 */
import { InputError } from '../../common';

/** Tests only: the instant (ISO 8601) taken as "now" when a run picks its template date, so a test can play a later day. */
export const TEST_CLOCK_ENV = 'REACH_AUDIT_TEST_NOW';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** `YYYY-MM-DD` as a UTC midnight, or an InputError naming `where`. */
export function parseTemplateDate(day: string, where: string): Date {
  const m = DAY.exec(day);
  const date = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!date || date.toISOString().slice(0, 10) !== day) throw new InputError(`${where}: expected a calendar day as YYYY-MM-DD (e.g. 2026-07-26), got '${day}'`);
  return date;
}

/** Today's UTC day as `YYYY-MM-DD` (the test clock's, when set). */
export function todayForTemplates(): string {
  const fake = process.env[TEST_CLOCK_ENV];
  const now = fake ? new Date(fake) : new Date();
  if (Number.isNaN(now.getTime())) throw new InputError(`${TEST_CLOCK_ENV}=${fake}: not a date`);
  return now.toISOString().slice(0, 10);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Python's strftime in the C locale for the directives templates use, at `date` (UTC); others are left as written. */
export function strftimeAt(date: Date, format: string): string {
  const dayOfYear = Math.floor((date.getTime() - Date.UTC(date.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
  return format.replace(/%[YymdeBbAaHMSjp%]/g, (d) => {
    switch (d) {
      case '%Y': return String(date.getUTCFullYear());
      case '%y': return pad(date.getUTCFullYear() % 100);
      case '%m': return pad(date.getUTCMonth() + 1);
      case '%d': return pad(date.getUTCDate());
      case '%e': return String(date.getUTCDate()).padStart(2, ' ');
      case '%B': return MONTHS[date.getUTCMonth()];
      case '%b': return MONTHS[date.getUTCMonth()].slice(0, 3);
      case '%A': return WEEKDAYS[date.getUTCDay()];
      case '%a': return WEEKDAYS[date.getUTCDay()].slice(0, 3);
      case '%H': return pad(date.getUTCHours());
      case '%M': return pad(date.getUTCMinutes());
      case '%S': return pad(date.getUTCSeconds());
      case '%j': return pad(dayOfYear, 3);
      case '%p': return date.getUTCHours() < 12 ? 'AM' : 'PM';
      default: return '%';
    }
  });
}

/** The strftime_now a template gets: the pinned day's, or today's (UTC) when none is pinned. */
export function strftimeNowAt(day: string | undefined): (format: unknown) => string {
  // Read when a template calls it: most templates never do.
  return (format) => strftimeAt(parseTemplateDate(day ?? todayForTemplates(), "the chat template's date"), typeof format === 'string' ? format : String(format));
}
