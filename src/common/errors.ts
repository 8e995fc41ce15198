/**
 * An error caused by what the user gave us: a bad flag, a malformed model file or dataset line.
 * Front ends print its message alone (no stack trace) and exit non-zero. Messages name the file,
 * line, field or argument and say what was expected. Engine, audit and CLI all throw this one class.
 */
export class InputError extends Error {
  override name = 'InputError';
}

/**
 * The model has no chat template and was asked for a chat prompt. Its message names the engine
 * commands' flag (--raw); a front end with other flags (the audit's --preset, --prompt raw)
 * words its own from `configFile`.
 */
export class MissingChatTemplateError extends InputError {
  override name = 'MissingChatTemplateError';
  constructor(readonly configFile: string) {
    super(`${configFile}: the model has no chat_template; expected one, or use a raw prompt (--raw)`);
  }
}

/**
 * A remote server failed or answered outside what was asked (--backend openai). An audit that
 * meets one mid-run says how many finished questions are kept and how to resume.
 */
export class RemoteServerError extends InputError {
  override name = 'RemoteServerError';
}
