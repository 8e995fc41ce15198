/**
 * `reach-audit serve --http HOST:PORT`: the local engine behind the OpenAI completions API (plus
 * the route and silenced-MLP extensions), for layer probes driven from another machine.
 */
import * as path from 'node:path';
import { loadModel } from '../engine/index';
import { startHttpServer } from '../service/httpServer';
import { UsageError } from './command';
import { MODEL_FLAGS, MODEL_FLAGS_HELP, parseFlags, parseWholeNumber, progressToStderr, requireModel } from './engineArgs';

export const SERVE_HTTP_HELP = [
  'Usage: reach-audit serve --http HOST:PORT --model DIR [options]',
  '',
  'Serves the model over HTTP with the OpenAI completions API, so that `audit --backend openai',
  '--base-url http://HOST:PORT/v1` can run every probe there, layer probes included:',
  '  GET  /health            model name, block count, context, the extensions offered',
  '  GET  /v1/models         the served model',
  '  POST /v1/completions    prompt (text or token ids), max_tokens, temperature, top_p, seed, stop,',
  '                          logprobs; extensions: route (block indices in order), silenced_mlp',
  'Requests that arrive together are decoded in one batch. Only n = 1 and stream = false.',
  '',
  '  --http HOST:PORT     where to listen (use 127.0.0.1 to stay on this machine; port 0 picks one)',
  ...MODEL_FLAGS_HELP,
  '  --name NAME          model name clients see (default: the folder name)',
  '  --token-env VAR      require "Authorization: Bearer $VAR" (the token is read from that variable)',
  '  --max-batch N        most sequences in one engine batch (default 32)',
  '  --max-tokens N       most tokens one request may generate (default 8192)',
  '  --max-body-bytes N   largest request body (default 4 MiB)',
].join('\n');

export function parseListen(value: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:]+\]|[^:]+):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new UsageError(`--http: expected HOST:PORT such as 127.0.0.1:8000, got '${value}'`);
  return { host: m[1].replace(/^\[|\]$/g, ''), port };
}

export async function serveHttp(args: string[]): Promise<number> {
  const v = parseFlags(args, {
    ...MODEL_FLAGS,
    http: { type: 'string' },
    name: { type: 'string' },
    'token-env': { type: 'string' },
    'max-batch': { type: 'string' },
    'max-tokens': { type: 'string' },
    'max-body-bytes': { type: 'string' },
  });
  const { host, port } = parseListen(v.http ?? '');
  const dir = requireModel(v);
  let token: string | undefined;
  if (v['token-env'] !== undefined) {
    token = process.env[v['token-env']];
    if (!token) throw new UsageError(`--token-env: the environment variable ${v['token-env']} is empty or not set`);
  }
  const model = await loadModel(dir, {
    cacheDir: v['cache-dir'],
    threads: parseWholeNumber(v.threads, '--threads', 1),
    maxBatch: parseWholeNumber(v['max-batch'], '--max-batch', 1),
    onProgress: progressToStderr(),
  });
  const server = await startHttpServer({
    model,
    modelName: v.name ?? path.basename(path.resolve(dir)),
    host,
    port,
    token,
    maxNewTokens: parseWholeNumber(v['max-tokens'], '--max-tokens', 1),
    maxBodyBytes: parseWholeNumber(v['max-body-bytes'], '--max-body-bytes', 1024),
  });
  // The one stdout line: where to connect (scripts and tests read it).
  process.stdout.write(`${JSON.stringify({ listening: server.url })}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  await model.dispose();
  return 0;
}
