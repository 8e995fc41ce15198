/** A parsed JSON value that is an object (not null, not an array): the first check on any run file or message. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
