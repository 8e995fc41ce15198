// The error class alone: every command imports this file, and the engine's entry module would load the runtime before any command needs it.
import { InputError } from '../common';

/** A subcommand of the reach-audit CLI. */
export interface Command {
  /** Shown for `reach-audit <name> --help`. */
  help: string;
  /** Runs with the arguments after the command name; resolves to the exit code. */
  run(args: string[]): Promise<number>;
}

/** Bad command-line input; the same class as every other user-input error (see engine/errors.ts). */
export { InputError as UsageError };

/** A warning on stderr that does not stop the command (a torn record line, an unfinished run). */
export function warn(message: string): void {
  process.stderr.write(`reach-audit: warning: ${message}\n`);
}
