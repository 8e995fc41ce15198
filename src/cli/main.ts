#!/usr/bin/env node
/**
 * The reach-audit command. Each subcommand lives in its own file and registers here.
 * Errors that are the user's (bad input) are printed as one line without a stack trace.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { version as packageVersion } from '../../package.json';
import { UsageError, type Command } from './command';
import { guardTerminalOutput } from './terminalText';

/** Every subcommand by name, in the order `--help` lists them (docs/reference/cli.md is generated from these). */
export const commands: Record<string, () => Promise<Command>> = {
  // the engine alone
  forward: async () => (await import('./forward.js')).forwardCommand,
  generate: async () => (await import('./generate.js')).generateCommand,
  // A development tool built as its own bundle (dist/bench.js, left out of the package), loaded only here.
  bench: async () => benchCommand(),
  fidelity: async () => (await import('./fidelity.js')).fidelityCommand,
  // audits and their results
  audit: async () => (await import('./audit.js')).auditCommand,
  compare: async () => (await import('./compare.js')).compareCommand,
  report: async () => (await import('./report.js')).reportCommand,
  merge: async () => (await import('./merge.js')).mergeCommand,
  grade: async () => (await import('./grade.js')).gradeCommand,
  regrade: async () => (await import('./regrade.js')).regradeCommand,
  import: async () => (await import('./import.js')).importCommand,
  table: async () => (await import('./table.js')).tableCommand,
  trajectory: async () => (await import('./trajectory.js')).trajectoryCommand,
  explain: async () => (await import('./explain.js')).explainCommand,
  verify: async () => (await import('./verify.js')).verifyCommand,
  // the engine child process of the VS Code extension
  serve: async () => (await import('./serve.js')).serveCommand,
};

/**
 * The measurement harness stands above the CLI (src/bench imports the CLI's flags and commands), so
 * the CLI does not import it: it requires the harness's bundle, dist/bench.js, from beside itself
 * by path, and takes the command that bundle exports. Without that file (an installed package, or
 * the tsc build in out/), it says where the harness is rather than a module error.
 */
function benchCommand(): Command {
  const bundle = path.join(__dirname, 'bench.js');
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file found at run time, not a module of this build (above)
    return (require(bundle) as { benchCommand: Command }).benchCommand;
  } catch (err) {
    if ((err as { code?: string } | null)?.code === 'MODULE_NOT_FOUND' && !fs.existsSync(bundle)) {
      throw new UsageError('bench is a development tool that this package leaves out: run it from a checkout of the repository (npm run build, then node dist/cli.js bench)');
    }
    throw err;
  }
}

export function usage(): string {
  const names = Object.keys(commands);
  return [
    'Usage: reach-audit <command> [options]',
    '',
    'Commands:',
    ...names.map((n) => `  ${n}`),
    '',
    "Run 'reach-audit <command> --help' for a command's options; 'reach-audit --version' for the version.",
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    process.stdout.write(usage() + '\n');
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write(`reach-audit ${packageVersion}\n`);
    return 0;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`reach-audit: unknown command '${name}'.\n${usage()}\n`);
    return 2;
  }
  let command: Command;
  try {
    command = await load();
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`reach-audit ${name}: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(command.help + '\n');
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`reach-audit ${name}: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

/**
 * onnxruntime reads /proc/self/cmdline when it starts and matches it recursively, one stack frame
 * group per character: a command line of about 30 KB (a long --stop, thousands of --ids) overflows
 * the main thread's stack and the process dies of SIGSEGV with nothing written. A command line over
 * this many bytes is therefore handed to a copy of this process whose own command line is short.
 */
const LONG_COMMAND_LINE_BYTES = 4096;
/** Set in that copy: the descriptor its arguments arrive on, as JSON. */
const ARGUMENTS_FD_ENV = 'REACH_AUDIT_ARGUMENTS_FD';

/** This process's arguments, from its command line or from the descriptor its parent wrote them to. */
function commandArguments(): string[] {
  const fd = process.env[ARGUMENTS_FD_ENV];
  if (fd === undefined) return process.argv.slice(2);
  delete process.env[ARGUMENTS_FD_ENV];
  const text = fs.readFileSync(Number(fd), 'utf8');
  fs.closeSync(Number(fd));
  return JSON.parse(text) as string[];
}

function commandLineBytes(argv: readonly string[]): number {
  return argv.reduce((n, a) => n + Buffer.byteLength(a) + 1, 0);
}

/** Runs the command in a copy of this process given `args` on a pipe; this one waits and exits as it does. */
function runWithShortCommandLine(args: string[]): void {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]], {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    env: { ...process.env, [ARGUMENTS_FD_ENV]: '3' },
  });
  (child.stdio[3] as NodeJS.WritableStream).end(JSON.stringify(args));
  // A terminal's Ctrl-C reaches both processes already; a signal sent to this one alone is passed on.
  const forwarded: NodeJS.Signals[] = process.stdin.isTTY ? ['SIGTERM', 'SIGHUP'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of forwarded) process.on(signal, () => child.kill(signal));
  if (process.stdin.isTTY) process.on('SIGINT', () => {});
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? 128 + (signal ? os.constants.signals[signal] : 0);
  });
}

if (require.main === module && commandLineBytes(process.argv) > LONG_COMMAND_LINE_BYTES && process.env[ARGUMENTS_FD_ENV] === undefined) {
  runWithShortCommandLine(process.argv.slice(2));
} else if (require.main === module) {
  guardTerminalOutput();
  main(commandArguments()).then(
    (code) => { process.exitCode = code; },
    (err: unknown) => {
      // Unexpected failures still get one readable line; REACH_AUDIT_DEBUG=1 shows the stack.
      const message = err instanceof Error ? err.message : String(err);
      process.stderr.write(`reach-audit: ${message}\n`);
      if (process.env.REACH_AUDIT_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
      process.exitCode = 1;
    },
  );
}
