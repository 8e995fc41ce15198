/**
 * A TextGenerator whose generations run on OpenAI-compatible servers (vLLM, SGLang, TGI,
 * llama.cpp's server, Ollama, or `reach-audit serve --http`). The prompt is rendered and tokenized
 * locally with the model folder's own chat template and tokenizer and sent as token ids, so the
 * remote deployment sees exactly the tokens the local one would. Requests, error types and auth come
 * from the maintained `openai` client; its body reading is bounded (boundedFetch.ts), its answers
 * are checked against the request (completionResponse.ts), and retries are this module's
 * (retryPolicy.ts): bounded, announced, and stopped at once by the caller's abort.
 *
 * Layer routes and silenced MLPs need layer access: only a server that announces the extensions on
 * its health endpoint (our own) gets them; anything else is refused before a request is sent. A
 * residual perturbation needs its own announced extension likewise.
 */
import OpenAI from 'openai';
import { readModelConfig, type ModelConfig } from '../checkpoint/config';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, InputError, RemoteServerError } from '../../common';
import { loadModelTokenizer, type ModelTokenizer } from '../text/tokenizer';
import { tokenizerFolder } from '../text/tokenizerFolder';
import type { ChatMessage, Generation, GenerationRequest, PromptSource, TemplateKwargs, TextGenerator } from '../types';
import { EXTENSIONS_VERSION, LAYER_EXTENSIONS, PERTURBATION_EXTENSION, TOKEN_RECORD_EXTENSION, CONTINUES_EXTENSION, type CompletionRequestBody, type CompletionResponseBody, type HealthBody } from './completionApi';
import { boundedFetch, readBounded } from './boundedFetch';
import { toGeneration } from './completionResponse';
import { checkApiKey, redactSecret, remoteError } from './remoteErrors';
import { formatSeconds, retryDecision, sleep } from './retryPolicy';
import { runPooled } from './requestPool';
import { ServerSlots } from './serverSlots';
import type { RemoteBackendInfo } from '../../contract';

/** What a run's manifest records about the backend (no secrets). */

export interface RemoteOptions {
  /** Local model folder: config.json, tokenizer and chat template (weights are not loaded). */
  modelDir: string;
  /** The folder of the tokenizer files when the model folder has none (--tokenizer-from); default modelDir. */
  tokenizerDir?: string;
  /** One or more server base URLs (…/v1); several are used round-robin. */
  baseUrls: readonly string[];
  /** The server's model name; default: the first model the first server lists. */
  apiModel?: string;
  /** Bearer token; read from an environment variable by the caller, never stored. */
  apiKey?: string;
  /** Requests in flight per server. */
  concurrency?: number;
  /** One attempt's limit, from sending the request to the last byte of the answer. */
  timeoutMs?: number;
  /** Tries after the first for a request that timed out, could not connect, or got 408/409/429/5xx. */
  maxRetries?: number;
  /** Progress lines while waiting (a retry, a slow server); the audit prints them as warnings. */
  onNotice?: (message: string) => void;
  /** How long requests wait on a server before it is mentioned, and how often after (default a minute). */
  slowNoticeMs?: number;
  /** Send two identical seeded requests at open to see whether the server honours `seed`. */
  checkSeed?: boolean;
}

/** How often a server that keeps requests waiting is mentioned. */
const SLOW_NOTICE_MS = 60_000;

/** A --base-url the backend can use: http or https, and no credentials in it (they belong in --api-key-env). */
export function checkBaseUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new InputError(`--base-url: '${raw}' is not a URL (expected e.g. http://127.0.0.1:8000/v1)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new InputError(`--base-url: '${publicUrl(raw)}' uses ${u.protocol}; expected an http:// or https:// server URL`);
  }
  if (u.username !== '' || u.password !== '') {
    throw new InputError(`--base-url: '${publicUrl(raw)}' carries a user name or password; give the key with --api-key-env VAR instead`);
  }
  return publicUrl(raw);
}

/** A URL as it may be written down: no user info, query or fragment (they can carry secrets). */
export function publicUrl(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  u.search = '';
  u.hash = '';
  return u.toString().replace(/\/$/, '');
}

interface Server {
  url: string;
  client: OpenAI;
  layerAccess: boolean;
  /** It announced the residual-perturbation extension too. */
  perturbation: boolean;
  /** It announced the token-record extension too. */
  tokenRecord: boolean;
  /** It announced the continues extension too. */
  continues: boolean;
  /** When each request now waiting on this server was sent (for the slow-server line). */
  waiting: Set<{ since: number }>;
  /** Its requests in flight across every generate call, at most --concurrency. */
  slots: ServerSlots;
}

interface Limits {
  timeoutMs: number;
  slowNoticeMs: number;
  maxRetries: number;
  apiKey?: string;
  notice: (message: string) => void;
}

export class RemoteGenerator implements TextGenerator {
  readonly numBlocks: number;
  private watch: NodeJS.Timeout | undefined;
  private constructor(
    readonly config: ModelConfig,
    private readonly tokenizer: ModelTokenizer,
    private readonly servers: Server[],
    readonly info: RemoteBackendInfo,
    private readonly limits: Limits,
    /** The model name sent in requests (info.apiModel is the one recorded, the key blanked out). */
    private readonly requestModel: string,
  ) {
    this.numBlocks = config.numBlocks;
  }

  static async open(options: RemoteOptions): Promise<RemoteGenerator> {
    if (options.baseUrls.length === 0) throw new InputError('--base-url: expected at least one server URL');
    if (options.apiKey !== undefined) checkApiKey(options.apiKey, '--api-key-env');
    const config = readModelConfig(options.modelDir);
    const tokenizer = loadModelTokenizer(options.modelDir, config, tokenizerFolder(options.modelDir, options.tokenizerDir));
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new InputError(`--concurrency: expected a whole number >= 1, got ${concurrency}`);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new InputError(`--timeout: expected a positive number of seconds, got ${timeoutMs / 1000}`);
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new InputError(`--max-retries: expected a whole number >= 0, got ${maxRetries}`);
    const limits: Limits = { timeoutMs, slowNoticeMs: options.slowNoticeMs ?? SLOW_NOTICE_MS, maxRetries, notice: options.onNotice ?? (() => {}), ...(options.apiKey ? { apiKey: options.apiKey } : {}) };
    const servers: Server[] = [];
    for (const raw of options.baseUrls) {
      const url = checkBaseUrl(raw);
      const client = new OpenAI({
        baseURL: raw,
        // The client insists on a key; local servers without auth ignore it.
        apiKey: options.apiKey ?? 'no-key',
        // Retries are ours (retryPolicy.ts): bounded waits, announced, interrupted by an abort.
        maxRetries: 0,
        timeout: timeoutMs,
        fetch: boundedFetch(),
      });
      const access = await announcedAccess(raw, config, url, limits);
      servers.push({ url, client, layerAccess: access.layer, perturbation: access.perturbation, tokenRecord: access.tokenRecord, continues: access.continues, waiting: new Set(), slots: new ServerSlots(concurrency) });
    }
    const apiModel = options.apiModel ?? (await firstModel(servers[0], limits));
    const info: RemoteBackendInfo = {
      backend: 'openai',
      baseUrls: servers.map((s) => s.url),
      // What is recorded (manifest.json, the report's rerun command) never holds the key, even when
      // a server reflects it into its model name; requests still name the model as the server does.
      apiModel: redactSecret(apiModel, options.apiKey),
      layerAccess: servers.every((s) => s.layerAccess),
      // Recorded only when given, so the manifests of servers without it read as before.
      ...(servers.every((s) => s.perturbation) ? { perturbation: true } : {}),
      seedHonoured: null,
      concurrency,
    };
    const generator = new RemoteGenerator(config, tokenizer, servers, info, limits, apiModel);
    if (options.checkSeed ?? true) info.seedHonoured = await generator.seedIsHonoured();
    return generator;
  }

  get hasChatTemplate(): boolean {
    return this.tokenizer.hasChatTemplate;
  }

  get templateReadsDate(): boolean {
    return this.tokenizer.templateReadsDate;
  }

  encodeChat(messages: readonly ChatMessage[], templateKwargs?: TemplateKwargs, templateDate?: string): number[] {
    return this.tokenizer.encodeChat(messages, templateKwargs, templateDate);
  }

  encodeRaw(text: string): number[] {
    return this.tokenizer.encodeRaw(text);
  }

  encodeText(text: string): number[] {
    return this.tokenizer.encodeText(text);
  }

  tokensAtLeast(prompt: PromptSource): number {
    return this.tokenizer.tokensAtLeast(prompt);
  }

  decode(ids: readonly number[]): string {
    return this.tokenizer.decode(ids);
  }

  async generate(requests: readonly GenerationRequest[], signal?: AbortSignal): Promise<Generation[]> {
    for (const r of requests) {
      if (needsLayerAccess(r, this.numBlocks) && !this.info.layerAccess) {
        throw new InputError(
          'route, search and repair probes need layer access, which this OpenAI-compatible server does not offer ' +
            `(${this.info.baseUrls.join(', ')}): run them on the local engine, or serve the model with \`reach-audit serve --http\``,
        );
      }
      if (r.tokenRecord !== undefined && !this.servers.every((s) => s.tokenRecord)) {
        throw new InputError(
          `the fork probe needs the token_record extension (each generated token's entropy and most likely alternatives), which ${this.info.baseUrls.join(', ')} does not announce: ` +
            'run it on the local engine, or serve the model with a `reach-audit serve --http` that offers it',
        );
      }
      if (r.continues !== undefined && !this.servers.every((s) => s.continues)) {
        throw new InputError(
          `the fork probe's branches continue the deployed generation (the continues extension), which ${this.info.baseUrls.join(', ')} does not announce: ` +
            'run it on the local engine, or serve the model with a `reach-audit serve --http` that offers it',
        );
      }
      if (r.perturbation && this.info.perturbation !== true) {
        throw new InputError(
          `the perturbation probe needs the residual_perturbation extension, which ${this.info.baseUrls.join(', ')} does not announce: ` +
            'run it on the local engine, or serve the model with a `reach-audit serve --http` that offers it',
        );
      }
    }
    const perServer = this.info.concurrency;
    return runPooled(
      requests,
      this.servers.map((server) => ({ slots: perServer, run: (r: GenerationRequest, s: AbortSignal) => this.complete(server, r, s) })),
      signal,
    );
  }

  /**
   * One watch for the whole generator while any request waits (an audit has many generate calls in
   * flight): a server that keeps requests waiting is mentioned once a minute, never a silent hang.
   */
  private watchWaiting(): void {
    const waiting = this.servers.some((s) => s.waiting.size > 0);
    if (waiting && !this.watch) {
      this.watch = setInterval(() => this.mentionSlowServers(), this.limits.slowNoticeMs);
      this.watch.unref();
    } else if (!waiting && this.watch) {
      clearInterval(this.watch);
      this.watch = undefined;
    }
  }

  private mentionSlowServers(): void {
    const now = Date.now();
    for (const server of this.servers) {
      const oldest = Math.min(...[...server.waiting].map((w) => w.since));
      if (!Number.isFinite(oldest) || now - oldest < this.limits.slowNoticeMs) continue;
      this.limits.notice(
        `${server.url}: ${server.waiting.size} ${server.waiting.size === 1 ? 'request' : 'requests'} waiting, the oldest for ${formatSeconds(now - oldest)} ` +
          `(each attempt gives up after ${formatSeconds(this.limits.timeoutMs)}: --timeout; its tries together after ${formatSeconds(ATTEMPTS_TIME_CAP * this.limits.timeoutMs)})`,
      );
    }
  }

  private async complete(server: Server, request: GenerationRequest, signal: AbortSignal): Promise<Generation> {
    const layered = needsLayerAccess(request, this.numBlocks);
    const body: CompletionRequestBody = {
      model: this.requestModel,
      prompt: [...request.promptIds],
      max_tokens: request.maxNewTokens,
      temperature: request.decoding.temperature,
      top_p: request.decoding.topP,
      seed: request.decoding.seed,
      logprobs: 1,
      n: 1,
      stream: false,
      ...(request.stop && request.stop.length > 0 ? { stop: [...request.stop] } : {}),
      ...(layered && request.route ? { route: [...request.route] } : {}),
      ...(layered && request.silencedMlp && request.silencedMlp.length > 0 ? { silenced_mlp: [...request.silencedMlp] } : {}),
      ...(request.tokenRecord !== undefined ? { token_record: request.tokenRecord } : {}),
      ...(request.perturbation ? { residual_perturbation: { after_block: request.perturbation.afterBlock, seed: request.perturbation.seed, scale: request.perturbation.scale, positions: request.perturbation.positions } } : {}),
      ...(request.pooledAfterBlock !== undefined ? { pooled_state_after_block: request.pooledAfterBlock } : {}),
      ...(request.continues ? { continues: { prompt_tokens: request.continues.promptTokens, generated_tokens: request.continues.generatedTokens } } : {}),
      ...(request.keepState ? { keep_state: true } : {}),
    };
    // Time spent waiting for a slot is this client's queue, not the server's slowness: the clock starts once it is sent.
    const release = await server.slots.acquire(signal);
    const waiting = { since: Date.now() };
    server.waiting.add(waiting);
    this.watchWaiting();
    try {
      // The body's extensions (route, silenced MLPs, perturbation) travel as extra fields, which the SDK sends as
      // given; the response's extension fields are read as CompletionResponseBody, which the SDK's Completion lacks.
      const response = await withRetries(server, this.limits, signal, (timeout) =>
        server.client.completions.create(body, { signal, timeout }) as Promise<CompletionResponseBody>,
      );
      return toGeneration(response, request, this.tokenizer, this.numBlocks, server.url, this.limits.apiKey);
    } finally {
      release();
      server.waiting.delete(waiting);
      this.watchWaiting();
    }
  }

  /** Two identical seeded samples: equal text means the seed is honoured (as far as one can tell). */
  private async seedIsHonoured(): Promise<boolean> {
    const promptIds = this.tokenizer.encodeRaw('Reach Audit checks whether this server honours seeds.');
    const request: GenerationRequest = { promptIds, maxNewTokens: 12, decoding: { temperature: 1, topP: 1, seed: 12345 } };
    const [a, b] = await this.generate([request, request]);
    return a.text === b.text && a.tokens.join(',') === b.tokens.join(',');
  }
}

function needsLayerAccess(r: GenerationRequest, numBlocks: number): boolean {
  const identity = r.route === undefined || (r.route.length === numBlocks && r.route.every((b, i) => b === i));
  return !identity || (r.silencedMlp !== undefined && r.silencedMlp.length > 0);
}

/**
 * How many --timeout's worth of time one request's tries may spend together. A server that trickles
 * bytes (or never answers) uses each try's whole timeout: at the defaults five tries took 50 minutes
 * per request. One that gave nothing in time twice is given up on (the waits between tries are
 * bounded and announced apart).
 */
const ATTEMPTS_TIME_CAP = 2;

/**
 * One request with this module's retries: a retryable failure waits (announced) and tries again,
 * up to the limit and while its tries have spent less than ATTEMPTS_TIME_CAP timeouts; anything
 * else, or the last failure, becomes one line naming the server. `attempt` gets its own timeout.
 */
async function withRetries<T>(server: Server, limits: Limits, signal: AbortSignal | undefined, attempt: (timeoutMs: number) => Promise<T>): Promise<T> {
  const capMs = ATTEMPTS_TIME_CAP * limits.timeoutMs;
  let spentMs = 0;
  for (let tried = 0; ; tried++) {
    const started = Date.now();
    try {
      return await attempt(Math.min(limits.timeoutMs, capMs - spentMs));
    } catch (err) {
      spentMs += Date.now() - started;
      if (signal?.aborted) throw signal.reason ?? err;
      let decision = retryDecision(err, tried, limits.maxRetries);
      // Less than a tenth of a timeout left: another try could only time out.
      if (decision.retry && capMs - spentMs < limits.timeoutMs / 10) {
        decision = { retry: false, reason: `gave up after ${formatSeconds(spentMs)} of tries, ${ATTEMPTS_TIME_CAP} times --timeout` };
      }
      if (!decision.retry) {
        const e = remoteError(server.url, err, limits.apiKey);
        if (decision.reason && e instanceof RemoteServerError) throw new RemoteServerError(`${e.message}; ${decision.reason}`);
        throw e;
      }
      limits.notice(`${server.url}: ${decision.why}; retry ${tried + 1} of ${limits.maxRetries} in ${formatSeconds(decision.waitMs)}`);
      await sleep(decision.waitMs, signal);
    }
  }
}

/** Whether the server announced the layer extensions, and the residual-perturbation one besides. */
async function announcedAccess(baseUrl: string, config: ModelConfig, url: string, limits: Limits): Promise<{ layer: boolean; perturbation: boolean; tokenRecord: boolean; continues: boolean }> {
  const none = { layer: false, perturbation: false, tokenRecord: false, continues: false };
  let health: Partial<HealthBody> | undefined;
  try {
    // Our server shows its details only to a client with the token (a bare /health just says ok).
    const response = await fetch(new URL('/health', baseUrl), {
      signal: AbortSignal.timeout(Math.min(10_000, limits.timeoutMs)),
      redirect: 'manual',
      ...(limits.apiKey ? { headers: { authorization: `Bearer ${limits.apiKey}` } } : {}),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return none;
    }
    health = JSON.parse(await readBounded(response, 64 * 1024)) as Partial<HealthBody>;
  } catch {
    return none;
  }
  const ext = health?.reach_audit;
  if (!ext || ext.extensions_version !== EXTENSIONS_VERSION) return none;
  if (!Array.isArray(ext.extensions) || !LAYER_EXTENSIONS.every((e) => ext.extensions.includes(e))) return none;
  if (ext.num_blocks !== config.numBlocks) {
    throw new InputError(`${url}: the server's model has ${ext.num_blocks} blocks, the local model folder's config.json says ${config.numBlocks}: not the same model`);
  }
  return { layer: true, perturbation: ext.extensions.includes(PERTURBATION_EXTENSION), tokenRecord: ext.extensions.includes(TOKEN_RECORD_EXTENSION), continues: ext.extensions.includes(CONTINUES_EXTENSION) };
}

async function firstModel(server: Server, limits: Limits): Promise<string> {
  try {
    const page = await withRetries(server, limits, undefined, () => server.client.models.list());
    const first: unknown = Array.isArray(page.data) ? page.data[0]?.id : undefined;
    if (typeof first !== 'string' || first === '') throw new InputError(`${server.url}: the server lists no models; name one with --api-model`);
    return first;
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw remoteError(server.url, err, limits.apiKey);
  }
}
