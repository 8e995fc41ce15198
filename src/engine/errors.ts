/**
 * An error caused by what the user gave us: a bad flag, a malformed model file or dataset line.
 * Front ends print its message alone (no stack trace) and exit non-zero. Messages name the file,
 * line, field or argument and say what was expected. Engine, audit and CLI all throw this one class.
 */
export class InputError extends Error {
  override name = 'InputError';
}
