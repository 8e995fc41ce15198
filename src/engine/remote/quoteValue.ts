/**
 * A value from the network as a message may quote it: short whatever it is, and never by
 * serializing it whole (JSON.stringify of a 100,000-deep array overflows the stack, and of
 * Infinity says null).
 */
export function quoteValue(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  return `an ${typeof v}`;
}
