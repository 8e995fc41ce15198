/**
 * `reach-audit serve --http HOST:PORT`: the local engine behind the OpenAI completions API (plus
 * the route and silenced-MLP extensions), for layer probes driven from another machine.
 */
import * as path from 'node:path';
import { loadModel } from '../engine/index';
import { checkListenAccess, DEFAULT_MAX_CONNECTIONS, isLoopback, startHttpServer } from '../service';
import { UsageError, warn } from './command';
import { MODEL_FLAGS, MODEL_FLAGS_HELP, parseFlags, parseKvCache, parseWeights, parseWholeNumber, progressToStderr, requireModel } from './flags';

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
  '  --token-env VAR      require "Authorization: Bearer $VAR" (the token is read from that variable);',
  '                       without it /health answers only {"status":"ok"}',
  '  --allow-no-token     listen beyond loopback (0.0.0.0, a LAN address) with no token: anyone who',
  '                       can reach the port can run the model (refused without this flag)',
  '  --max-batch N        most sequences in one engine batch (default 32)',
  '  --max-tokens N       most tokens one request may generate (default 8192)',
  '  --max-body-bytes N   largest request body (default 4 MiB), received within 60 s',
  `  --max-connections N  most connections open at once; more are closed (default ${DEFAULT_MAX_CONNECTIONS})`,
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
    'allow-no-token': { type: 'boolean' },
    'max-batch': { type: 'string' },
    'max-tokens': { type: 'string' },
    'max-body-bytes': { type: 'string' },
    'max-connections': { type: 'string' },
  });
  const { host, port } = parseListen(v.http ?? '');
  const dir = requireModel(v);
  let token: string | undefined;
  if (v['token-env'] !== undefined) {
    token = process.env[v['token-env']];
    if (!token) throw new UsageError(`--token-env: the environment variable ${v['token-env']} is empty or not set`);
  }
  // Refused before the model loads; an accepted open port is said out loud.
  checkListenAccess(host, v.http ?? '', token !== undefined, v['allow-no-token'] === true);
  if (token === undefined && !isLoopback(host)) warn(`--http ${v.http} with --allow-no-token: anyone who can reach this port can run the model`);
  const model = await loadModel(dir, {
    cacheDir: v['cache-dir'],
    threads: parseWholeNumber(v.threads, '--threads', 1),
    maxBatch: parseWholeNumber(v['max-batch'], '--max-batch', 1),
    weights: parseWeights(v.weights),
    kvCache: parseKvCache(v['kv-cache']),
    tokenizerDir: v['tokenizer-from'],
    onProgress: progressToStderr(),
  });
  const server = await startHttpServer({
    model,
    modelName: v.name ?? path.basename(path.resolve(dir)),
    host,
    port,
    token,
    allowNoToken: v['allow-no-token'] === true,
    maxNewTokens: parseWholeNumber(v['max-tokens'], '--max-tokens', 1),
    maxBodyBytes: parseWholeNumber(v['max-body-bytes'], '--max-body-bytes', 1024),
    maxConnections: parseWholeNumber(v['max-connections'], '--max-connections', 1),
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
