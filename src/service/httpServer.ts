/**
 * The engine over HTTP (`reach-audit serve --http`): the OpenAI completions API plus the layer
 * extensions `route` and `silenced_mlp`, so route, search and repair probes can run on another
 * machine, and `residual_perturbation` for the perturbation probe. Requests that arrive together are decoded in one engine batch. Binds to loopback unless
 * told otherwise, and beyond it only with a bearer token (or an explicit flag); request bodies,
 * prompts, routes and token budgets are bounded before anything is tokenized or allocated.
 */
import * as crypto from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  checkRoute,
  checkSilenced,
  checkTokenIds,
  EXTENSIONS_VERSION,
  InputError,
  LAYER_EXTENSIONS,
  PERTURBATION_EXTENSION,
  TOKEN_RECORD_EXTENSION,
  CONTINUES_EXTENSION,
  quoteValue,
  type CompletionRequestBody,
  type CompletionResponseBody,
  type GenerationRequest,
  type HealthBody,
  type ResidualPerturbation,
  type TextGenerator,
} from '../engine/index';

/** What the server needs of a loaded model. */
export interface ServedModel extends TextGenerator {
  readonly vocabSize: number;
  readonly config: { readonly maxPositionEmbeddings: number };
}

export interface HttpServerOptions {
  model: ServedModel;
  /** The name clients pass as `model` (any name is accepted; this one is listed). */
  modelName: string;
  host: string;
  port: number;
  /** Bearer token clients must send; none when undefined. */
  token?: string;
  /** Listen beyond loopback without a token (anyone who can reach the port can run the model). */
  allowNoToken?: boolean;
  maxBodyBytes?: number;
  /** Most tokens one request may ask for. */
  maxNewTokens?: number;
  /** Most connections open at once; more are closed as they arrive (default DEFAULT_MAX_CONNECTIONS). */
  maxConnections?: number;
  /** How long a client may take to send a whole request, headers and body (default DEFAULT_REQUEST_RECEIPT_MS). */
  requestReceiptMs?: number;
}

/**
 * Connections held at once. A client that opens connections and sends its bodies a byte at a time
 * held each for Node's default 300 s, with no limit on how many: the cap bounds the sockets and
 * memory such a client can take. The audit's clients keep 4 requests per server in flight.
 */
export const DEFAULT_MAX_CONNECTIONS = 64;
/** Receiving one request (4 MiB at most): a minute even on a slow link; generating its answer is not counted. */
export const DEFAULT_REQUEST_RECEIPT_MS = 60_000;

export interface RunningHttpServer {
  url: string;
  close(): Promise<void>;
  /** Completions served so far (tests and health checks). */
  readonly served: () => number;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/** A route may hold each block at most twice (the audit's own routes never hold more). */
export const MAX_ROUTE_BLOCKS_FACTOR = 2;

/** Listening beyond loopback needs a token, or the explicit flag that accepts an open port. */
export function checkListenAccess(host: string, listen: string, hasToken: boolean, allowNoToken: boolean): void {
  if (hasToken || allowNoToken || isLoopback(host)) return;
  throw new InputError(
    `--http ${listen}: listening beyond this machine without a token lets anyone who can reach the port run the model; ` +
      'set a token with --token-env VAR (clients send it with --api-key-env), listen on 127.0.0.1, or pass --allow-no-token to accept that',
  );
}

/** Whether a listen address stays on this machine. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::ffff:127.0.0.1';
}

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const { model } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const maxNewTokens = options.maxNewTokens ?? 8192;
  let served = 0;
  const expected = options.token === undefined ? undefined : Buffer.from(`Bearer ${options.token}`);
  checkListenAccess(options.host, `${options.host}:${options.port}`, expected !== undefined, options.allowNoToken === true);

  const requestReceiptMs = options.requestReceiptMs ?? DEFAULT_REQUEST_RECEIPT_MS;
  const limits: http.ServerOptions = {
    requestTimeout: requestReceiptMs,
    headersTimeout: Math.min(requestReceiptMs, 30_000),
    // How often Node looks for requests past those limits (its default, 30 s, would let a short limit run long).
    connectionsCheckingInterval: Math.max(10, Math.min(1000, requestReceiptMs / 4)),
  };
  const server = http.createServer(limits, (req, res) => {
    void handle(req, res).catch((err: unknown) => {
      const e = err instanceof HttpError ? err : err instanceof InputError ? new HttpError(400, err.message) : new HttpError(500, err instanceof Error ? err.message : String(err), 'server_error');
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (!req.complete) {
        // The body is not read (too large, or refused before it: no token, no such route): the
        // answer says so and the connection closes after it, rather than waiting on the rest.
        res.setHeader('connection', 'close');
        res.once('finish', () => setTimeout(() => req.socket.destroy(), 1000).unref());
      }
      sendJson(res, e.status, { error: { message: e.message, type: e.type, param: e.param, code: null } });
    });
  });
  server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/health') {
      // Liveness for anyone; what the model is, only for a client with the token.
      if (expected && !authorized(req)) return sendJson(res, 200, { status: 'ok' });
      const body: HealthBody = {
        status: 'ok',
        model: options.modelName,
        reach_audit: {
          extensions_version: EXTENSIONS_VERSION,
          extensions: [...LAYER_EXTENSIONS, PERTURBATION_EXTENSION, TOKEN_RECORD_EXTENSION, CONTINUES_EXTENSION],
          num_blocks: model.numBlocks,
          max_position_embeddings: model.config.maxPositionEmbeddings,
        },
      };
      return sendJson(res, 200, body);
    }
    authorize(req);
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      return sendJson(res, 200, { object: 'list', data: [{ id: options.modelName, object: 'model', created: 0, owned_by: 'reach-audit' }] });
    }
    if (url.pathname !== '/v1/completions') throw new HttpError(404, `no route ${req.method} ${url.pathname}: this server offers GET /health, GET /v1/models and POST /v1/completions`);
    if (req.method !== 'POST') throw new HttpError(405, `${url.pathname} takes POST`);
    const body = parseBody(await readBody(req, maxBodyBytes));
    const request = toRequest(body, model, maxNewTokens);
    const closed = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) closed.abort(new Error('client went away'));
    });
    // Each request is its own generate call: the engine's one queue batches concurrent calls and
    // refills a finished sequence's place at the next step; a client that went away leaves it.
    const [g] = await model.generate([request], closed.signal);
    served++;
    const response: CompletionResponseBody & { choices: { token_ids: number[] }[] } = {
      id: `cmpl-${crypto.randomUUID()}`,
      object: 'text_completion',
      created: Math.floor(Date.now() / 1000),
      model: options.modelName,
      choices: [
        {
          index: 0,
          text: g.text,
          finish_reason: g.finishReason,
          logprobs: body.logprobs === undefined || body.logprobs === null ? null : {
            tokens: g.tokens.map((t) => model.decode([t])),
            token_logprobs: g.logprobs,
            top_logprobs: null,
          },
          token_ids: g.tokens,
          ...(g.tokenRecord ? { token_record: { entropy: g.tokenRecord.map((s) => s.entropy), top: g.tokenRecord.map((s) => s.top) } } : {}),
          ...(g.pooledState ? { pooled_state: g.pooledState } : {}),
        },
      ],
      usage: { prompt_tokens: request.promptIds.length, completion_tokens: g.cost.generatedTokens, total_tokens: request.promptIds.length + g.cost.generatedTokens },
    };
    sendJson(res, 200, response);
  }

  function authorized(req: http.IncomingMessage): boolean {
    if (!expected) return true;
    const given = Buffer.from(req.headers.authorization ?? '');
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  }

  function authorize(req: http.IncomingMessage): void {
    if (!authorized(req)) throw new HttpError(401, 'missing or wrong bearer token', 'authentication_error');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new InputError(`--http ${options.host}:${options.port}: cannot listen (${err.code ?? err.message})`)),
    );
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/v1`,
    served: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: http.IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      // Refused unread (the connection closes after the answer), not drained.
      reject(new HttpError(413, `request body of ${declared} bytes is over the limit of ${limit}`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Chunked bodies have no declared length: stop reading here and answer 413, as for a declared one.
        req.off('data', onData);
        req.pause();
        reject(new HttpError(413, `request body is over the limit of ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBody(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'the request body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new HttpError(400, 'the request body must be a JSON object');
  return value as Record<string, unknown>;
}

function field<T>(body: Record<string, unknown>, name: keyof CompletionRequestBody, check: (v: unknown) => v is T, expected: string): T | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (!check(v)) throw new HttpError(400, `${name}: expected ${expected}, got ${quoteValue(v)}`, 'invalid_request_error', name);
  return v;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isArray = (v: unknown): v is unknown[] => Array.isArray(v);
const isInt = (v: unknown): v is number => Number.isInteger(v);
const isIntArray = (v: unknown): v is number[] => Array.isArray(v) && v.every(isInt);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
type ContinuesBody = NonNullable<CompletionRequestBody['continues']>;
const isContinuesBody = (v: unknown): v is ContinuesBody => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return isInt(o.prompt_tokens) && isInt(o.generated_tokens);
};
type PerturbationBody = NonNullable<CompletionRequestBody['residual_perturbation']>;
const isPerturbationBody = (v: unknown): v is PerturbationBody => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return isInt(o.after_block) && isInt(o.seed) && isNumber(o.scale) && typeof o.positions === 'string' && Object.keys(o).length === 4;
};

/** The body's perturbation in the engine's words; the engine checks its values against the route (a 400 naming them). */
function toPerturbation(p: PerturbationBody): ResidualPerturbation {
  return { afterBlock: p.after_block, seed: p.seed, scale: p.scale, positions: p.positions as ResidualPerturbation['positions'] };
}

/** A validated engine request, or a 400 naming the field. */
export function toRequest(body: Record<string, unknown>, model: ServedModel, maxNewTokensLimit: number): GenerationRequest {
  if (field(body, 'stream', isBoolean, 'a boolean')) throw new HttpError(400, 'stream: streaming is not supported; send stream: false', 'invalid_request_error', 'stream');
  const n = field(body, 'n', isInt, 'an integer') ?? 1;
  if (n !== 1) throw new HttpError(400, `n: only 1 completion per request is supported, got ${n}`, 'invalid_request_error', 'n');
  const maxTokens = field(body, 'max_tokens', isInt, 'an integer') ?? 16;
  if (maxTokens < 1 || maxTokens > maxNewTokensLimit) throw new HttpError(400, `max_tokens: expected 1 to ${maxNewTokensLimit}, got ${maxTokens}`, 'invalid_request_error', 'max_tokens');
  const context = model.config.maxPositionEmbeddings;
  const overContext = (tokens: string) => new HttpError(400, `prompt (${tokens} tokens) + max_tokens (${maxTokens}) is over the model's context of ${context} tokens`, 'invalid_request_error', 'prompt');
  const prompt = body.prompt;
  let promptIds: number[];
  if (typeof prompt === 'string') {
    // A text that cannot fit is refused from its length, before the tokenizer holds the event loop.
    const least = model.tokensAtLeast?.({ raw: prompt }) ?? 0;
    if (least + maxTokens > context) throw overContext(`at least ${least}`);
    promptIds = model.encodeRaw(prompt);
  } else if (isArray(prompt)) {
    if (prompt.length + maxTokens > context) throw overContext(String(prompt.length));
    if (!isIntArray(prompt)) throw new HttpError(400, 'prompt: expected a string or an array of token ids (one prompt per request)', 'invalid_request_error', 'prompt');
    promptIds = prompt;
  } else throw new HttpError(400, 'prompt: expected a string or an array of token ids (one prompt per request)', 'invalid_request_error', 'prompt');
  if (promptIds.length === 0) throw new HttpError(400, 'prompt: is empty', 'invalid_request_error', 'prompt');
  if (promptIds.length + maxTokens > context) throw overContext(String(promptIds.length));
  const temperature = field(body, 'temperature', isNumber, 'a finite number') ?? 1;
  const topP = field(body, 'top_p', isNumber, 'a finite number') ?? 1;
  if (temperature < 0 || temperature > 10) throw new HttpError(400, `temperature: expected 0 to 10, got ${temperature}`, 'invalid_request_error', 'temperature');
  if (topP <= 0 || topP > 1) throw new HttpError(400, `top_p: expected more than 0 and at most 1, got ${topP}`, 'invalid_request_error', 'top_p');
  const seed = field(body, 'seed', isInt, 'an integer') ?? 0;
  const stopField = body.stop;
  const stop = typeof stopField === 'string' ? [stopField] : field(body, 'stop', isStringArray, 'a string or an array of strings');
  if (stop && (stop.length > 16 || stop.some((s) => s.length === 0 || s.length > 256))) {
    throw new HttpError(400, 'stop: expected at most 16 non-empty strings of at most 256 characters', 'invalid_request_error', 'stop');
  }
  // Lengths first: a step's cost grows with the route, and a 4 MiB body holds two million entries.
  const maxRoute = MAX_ROUTE_BLOCKS_FACTOR * model.numBlocks;
  if (isArray(body.route) && body.route.length > maxRoute) {
    throw new HttpError(400, `route: holds ${body.route.length} block indices; at most ${maxRoute} (each of the ${model.numBlocks} blocks at most twice)`, 'invalid_request_error', 'route');
  }
  if (isArray(body.silenced_mlp) && body.silenced_mlp.length > model.numBlocks) {
    throw new HttpError(400, `silenced_mlp: holds ${body.silenced_mlp.length} block indices; the model has ${model.numBlocks} blocks`, 'invalid_request_error', 'silenced_mlp');
  }
  const routeField = field(body, 'route', isIntArray, 'an array of block indices');
  const silencedField = field(body, 'silenced_mlp', isIntArray, 'an array of block indices');
  const perturbationField = field(body, 'residual_perturbation', isPerturbationBody, 'an object {after_block, seed, scale, positions}');
  // Its range (1 to 8) is the engine's check: a 400 naming the bound.
  const tokenRecordField = field(body, 'token_record', isInt, 'a whole number of alternatives per token');
  const pooledField = field(body, 'pooled_state_after_block', isInt, 'a block index');
  // Its bounds (inside the prompt, at least one id added) are the engine's check: a 400 naming them.
  const continuesField = field(body, 'continues', isContinuesBody, 'an object {prompt_tokens, generated_tokens} of whole numbers');
  const keepStateField = field(body, 'keep_state', isBoolean, 'true or false');
  try {
    checkTokenIds(promptIds, model.vocabSize, 'prompt');
    const route = routeField === undefined ? undefined : checkRoute(routeField, model.numBlocks, 'route');
    const silenced = silencedField === undefined ? undefined : [...checkSilenced(silencedField, model.numBlocks, 'silenced_mlp')];
    return {
      promptIds,
      maxNewTokens: maxTokens,
      decoding: { temperature, topP, seed: seed >>> 0 },
      ...(route ? { route } : {}),
      ...(silenced && silenced.length > 0 ? { silencedMlp: silenced } : {}),
      ...(perturbationField ? { perturbation: toPerturbation(perturbationField) } : {}),
      ...(tokenRecordField !== undefined ? { tokenRecord: tokenRecordField } : {}),
      ...(pooledField !== undefined ? { pooledAfterBlock: pooledField } : {}),
      ...(continuesField ? { continues: { promptTokens: continuesField.prompt_tokens, generatedTokens: continuesField.generated_tokens } } : {}),
      ...(keepStateField ? { keepState: true } : {}),
      ...(stop && stop.length > 0 ? { stop } : {}),
    };
  } catch (err) {
    if (err instanceof InputError) throw new HttpError(400, err.message);
    throw err;
  }
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
