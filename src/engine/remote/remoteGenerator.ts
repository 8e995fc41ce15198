/**
 * A TextGenerator whose generations run on OpenAI-compatible servers (vLLM, SGLang, TGI,
 * llama.cpp's server, Ollama, or `reach-audit serve --http`). The prompt is rendered and tokenized
 * locally with the model folder's own chat template and tokenizer and sent as token ids, so the
 * remote deployment sees exactly the tokens the local one would. Retries with backoff (honouring
 * Retry-After), timeouts and error types come from the maintained `openai` client.
 *
 * Layer routes and silenced MLPs need layer access: only a server that announces the extensions on
 * its health endpoint (our own) gets them; anything else is refused before a request is sent.
 */
import OpenAI from 'openai';
import { readModelConfig, type ModelConfig } from '../config';
import { InputError } from '../errors';
import { loadModelTokenizer, type ModelTokenizer } from '../tokenizer';
import type { ChatMessage, Generation, GenerationRequest, PromptSource, TextGenerator } from '../types';
import { EXTENSIONS_VERSION, LAYER_EXTENSIONS, type CompletionRequestBody, type CompletionResponseBody, type HealthBody } from './completionApi';
import { runPooled } from './requestPool';
import type { RemoteBackendInfo } from '../../contract';

/** What a run's manifest records about the backend (no secrets). */
export type { RemoteBackendInfo };

export interface RemoteOptions {
  /** Local model folder: config.json, tokenizer and chat template (weights are not loaded). */
  modelDir: string;
  /** One or more server base URLs (…/v1); several are used round-robin. */
  baseUrls: readonly string[];
  /** The server's model name; default: the first model the first server lists. */
  apiModel?: string;
  /** Bearer token; read from an environment variable by the caller, never stored. */
  apiKey?: string;
  /** Requests in flight per server. */
  concurrency?: number;
  timeoutMs?: number;
  maxRetries?: number;
  /** Send two identical seeded requests at open to see whether the server honours `seed`. */
  checkSeed?: boolean;
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
}

export class RemoteGenerator implements TextGenerator {
  readonly numBlocks: number;
  private constructor(
    readonly config: ModelConfig,
    private readonly tokenizer: ModelTokenizer,
    private readonly servers: Server[],
    readonly info: RemoteBackendInfo,
  ) {
    this.numBlocks = config.numBlocks;
  }

  static async open(options: RemoteOptions): Promise<RemoteGenerator> {
    if (options.baseUrls.length === 0) throw new InputError('--base-url: expected at least one server URL');
    const config = readModelConfig(options.modelDir);
    const tokenizer = loadModelTokenizer(options.modelDir, config);
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new InputError(`--concurrency: expected a whole number >= 1, got ${concurrency}`);
    const servers: Server[] = [];
    for (const raw of options.baseUrls) {
      let url: string;
      try {
        url = publicUrl(raw);
      } catch {
        throw new InputError(`--base-url: '${raw}' is not a URL (expected e.g. http://127.0.0.1:8000/v1)`);
      }
      const client = new OpenAI({
        baseURL: raw,
        // The client insists on a key; local servers without auth ignore it.
        apiKey: options.apiKey ?? 'no-key',
        maxRetries: options.maxRetries ?? 4,
        timeout: options.timeoutMs ?? 600_000,
        fetch: openAiEnvelope,
      });
      servers.push({ url, client, layerAccess: await announcesLayerAccess(raw, config, url) });
    }
    const apiModel = options.apiModel ?? (await firstModel(servers[0]));
    const info: RemoteBackendInfo = {
      backend: 'openai',
      baseUrls: servers.map((s) => s.url),
      apiModel,
      layerAccess: servers.every((s) => s.layerAccess),
      seedHonoured: null,
      concurrency,
    };
    const generator = new RemoteGenerator(config, tokenizer, servers, info);
    if (options.checkSeed ?? true) info.seedHonoured = await generator.seedIsHonoured();
    return generator;
  }

  get hasChatTemplate(): boolean {
    return this.tokenizer.hasChatTemplate;
  }

  encodeChat(messages: readonly ChatMessage[]): number[] {
    return this.tokenizer.encodeChat(messages);
  }

  encodeRaw(text: string): number[] {
    return this.tokenizer.encodeRaw(text);
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
    }
    const perServer = this.info.concurrency;
    return runPooled(
      requests,
      this.servers.map((server) => ({ slots: perServer, run: (r: GenerationRequest, s: AbortSignal) => this.complete(server, r, s) })),
      signal,
    );
  }

  private async complete(server: Server, request: GenerationRequest, signal: AbortSignal): Promise<Generation> {
    const layered = needsLayerAccess(request, this.numBlocks);
    const body: CompletionRequestBody = {
      model: this.info.apiModel,
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
    };
    let response: CompletionResponseBody;
    try {
      // The SDK's params type has no room for the extensions; the body is sent as given.
      response = (await server.client.completions.create(body as unknown as OpenAI.CompletionCreateParamsNonStreaming, { signal })) as unknown as CompletionResponseBody;
    } catch (err) {
      throw remoteError(server.url, err);
    }
    return toGeneration(response, request, this.tokenizer, this.numBlocks, server.url);
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

/** The Generation a completion response stands for; `numBlocks` prices an implicit identity route. */
export function toGeneration(response: CompletionResponseBody, request: GenerationRequest, tokenizer: Pick<ModelTokenizer, 'encodeText'>, numBlocks: number, url: string): Generation {
  const choice = response?.choices?.[0];
  if (!choice || typeof choice.text !== 'string') {
    throw new InputError(`${url}: the completion response has no choices[0].text (got ${JSON.stringify(response).slice(0, 200)})`);
  }
  const tokens = Array.isArray(choice.token_ids) ? choice.token_ids.filter((t): t is number => Number.isInteger(t)) : tokenizer.encodeText(choice.text);
  const logprobs = (choice.logprobs?.token_logprobs ?? []).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  const generated = Array.isArray(choice.token_ids) ? tokens.length : (response.usage?.completion_tokens ?? tokens.length);
  const routeLength = request.route?.length ?? numBlocks;
  return {
    tokens,
    text: choice.text,
    logprobs,
    finishReason: choice.finish_reason === 'length' ? 'length' : 'stop',
    cost: { generatedTokens: generated, blockApplications: routeLength * (request.promptIds.length + generated) },
  };
}

async function announcesLayerAccess(baseUrl: string, config: ModelConfig, url: string): Promise<boolean> {
  let health: Partial<HealthBody> | undefined;
  try {
    const response = await fetch(new URL('/health', baseUrl), { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) return false;
    health = (await response.json()) as Partial<HealthBody>;
  } catch {
    return false;
  }
  const ext = health?.reach_audit;
  if (!ext || ext.extensions_version !== EXTENSIONS_VERSION) return false;
  if (!LAYER_EXTENSIONS.every((e) => ext.extensions?.includes(e))) return false;
  if (ext.num_blocks !== config.numBlocks) {
    throw new InputError(`${url}: the server's model has ${ext.num_blocks} blocks, the local model folder's config.json says ${config.numBlocks}: not the same model`);
  }
  return true;
}

async function firstModel(server: Server): Promise<string> {
  try {
    const page = await server.client.models.list();
    const first = page.data[0]?.id;
    if (!first) throw new InputError(`${server.url}: the server lists no models; name one with --api-model`);
    return first;
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw remoteError(server.url, err);
  }
}

/**
 * fetch that rewraps error bodies of the form {"object":"error","message":…} (vLLM's, among others)
 * into the OpenAI envelope {"error":{…}}, which is the only one the client reads a message from.
 */
async function openAiEnvelope(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.ok) return response;
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const body = isRecord(parsed) && !('error' in parsed) && typeof parsed.message === 'string' ? JSON.stringify({ error: parsed }) : text;
  // The body is now decoded text of another length: its length and encoding headers no longer apply.
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** One readable line naming the server and what it said. */
export function remoteError(url: string, err: unknown): Error {
  if (err instanceof OpenAI.APIUserAbortError) return err;
  if (err instanceof OpenAI.APIConnectionTimeoutError) return new InputError(`${url}: the server did not answer in time`);
  if (err instanceof OpenAI.APIConnectionError) return new InputError(`${url}: cannot reach the server (${err.message})`);
  if (err instanceof OpenAI.APIError) return new InputError(`${url}: the server answered ${err.status ?? '?'}: ${err.message}`);
  return err instanceof Error ? err : new Error(String(err));
}
