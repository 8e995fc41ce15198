/**
 * `reach-audit serve`: the engine child process of the VS Code extension. Wires stdin and stdout to
 * the engine service (src/service/engineService.ts): requests as JSON lines on stdin, events as JSON
 * lines on stdout (src/service/protocol.ts); stdout carries nothing else, diagnostics go to stderr.
 * When stdin closes (the extension went away) everything is cancelled and the process exits.
 */
import { UsageError, type Command } from './command';
import { parseFlags } from './flags';
import { SERVE_HTTP_HELP, serveHttp } from './serveHttp';
import { EngineService, MAX_REQUEST_BYTES, LineSplitter, encodeLine } from '../service';

const help = [
  'Usage: reach-audit serve',
  '',
  'Runs the engine as a service for the VS Code extension: requests as JSON lines on stdin',
  '(audit, auditQuestion, compare, cancel, shutdown), events as JSON lines on stdout (hello,',
  'started, progress, record, log, result, stopped, error). Diagnostics go to stderr. The',
  'protocol is defined in src/service/protocol.ts. Exits when stdin closes.',
  '',
  SERVE_HTTP_HELP,
].join('\n');

export const serveCommand: Command = {
  help,
  async run(args) {
    if (args.some((a) => a === '--http' || a.startsWith('--http='))) return serveHttp(args);
    if (args.length > 0) {
      // Every serve option belongs to --http; without it, serve is the extension's engine process.
      const flag = args.find((a) => a.startsWith('--'));
      if (flag !== undefined && flag !== '--help') {
        throw new UsageError(`${flag.split('=')[0]} is an option of \`serve --http HOST:PORT\`; without --http, serve is the VS Code extension's engine process and takes no options`);
      }
    }
    parseFlags(args, {});
    // stdout is the protocol channel: anything else that writes there (a library's console.log)
    // goes to stderr instead, so it cannot corrupt an event line.
    const stdout = process.stdout;
    const writeEvent = stdout.write.bind(stdout) as (text: string) => boolean;
    stdout.write = ((...a: Parameters<typeof process.stderr.write>) => process.stderr.write(...a)) as typeof stdout.write;

    let closed!: () => void;
    const finished = new Promise<void>((resolve) => (closed = resolve));
    const service = new EngineService((event) => {
      writeEvent(encodeLine(event));
    }, closed);
    // The extension went away (or closed our stdin): stop; finished questions are on disk.
    const stop = () => void service.shutdown();
    stdout.on('error', stop);
    const splitter = new LineSplitter(
      (line) => service.receive(line),
      MAX_REQUEST_BYTES,
      (bytes) => service.tooLong(bytes),
    );
    process.stdin.on('data', (chunk: Buffer) => splitter.push(chunk));
    process.stdin.on('end', () => {
      splitter.end();
      stop();
    });
    process.stdin.on('error', stop);
    service.hello();
    await finished;
    process.stdin.destroy();
    // Native runtime threads must not keep a finished engine alive.
    setTimeout(() => process.exit(0), 2000).unref();
    return 0;
  },
};
