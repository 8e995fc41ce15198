/**
 * The engine's public contract, shared by the audit layer, the CLI and the extension.
 * Domain words follow docs/design/probes.md: a Route is the list of block indices executed in order.
 */

/** Block indices executed in order; the identity route [0..L-1] is the deployed model. */
export type Route = readonly number[];

/** Why a sequence stopped: eos / stop string, or the token budget ran out (truncated). */
export type FinishReason = 'stop' | 'length';

/** Decoding rule for one sequence. temperature 0 means greedy. */
export interface Decoding {
  temperature: number;
  topP: number;
  /** Seed of this sequence's own PRNG, so its sample never depends on the rest of the batch. */
  seed: number;
}

/**
 * Which tokens a residual perturbation touches: every token, the prompt's tokens only, or the
 * prompt's last token and every generated one (what the model writes from).
 */
export type PerturbedPositions = 'all' | 'prompt' | 'continuation';
export const PERTURBED_POSITIONS: readonly PerturbedPositions[] = ['all', 'prompt', 'continuation'];

/**
 * A seeded random direction added to the residual stream after one block (design: perturbation
 * probe). At each touched token t the residual h_t after the block becomes h_t + scale·‖h_t‖·u,
 * u the unit direction drawn from `seed` (perturbationDirection), so the push is the same share of
 * the residual at every token. Applied wherever the token is computed (prompt or decode step), so
 * every later block's keys and values see the perturbed stream.
 */
export interface ResidualPerturbation {
  /** The block after which the vector is added (its first position in the route). */
  afterBlock: number;
  seed: number;
  /** The added vector's length as a share of the residual's norm at that token. */
  scale: number;
  positions: PerturbedPositions;
}

/** One sequence to generate, with its own route, silenced MLPs and decoding. */
export interface GenerationRequest {
  promptIds: readonly number[];
  /** Defaults to the identity route. */
  route?: Route;
  /** Blocks whose MLP output is zeroed at every position and every occurrence in the route. */
  silencedMlp?: readonly number[];
  /** A random direction added to the residual stream after one block. */
  perturbation?: ResidualPerturbation;
  maxNewTokens: number;
  decoding: Decoding;
  /** Generation stops when the decoded text contains one of these (the stop string is cut off). */
  stop?: readonly string[];
  /**
   * Keep a token record (entropy and this many most likely tokens, 1 to 8) of every generated
   * token, from the logits each was chosen from. Absent: none (the generation is the same either way).
   */
  tokenRecord?: number;
  /**
   * Also return the prompt's pooled state: the mean over the prompt's tokens of the residual stream
   * after the first application of this block in the route, read during the request's own prefill.
   */
  pooledAfterBlock?: number;
  /**
   * This request continues a generation: promptIds are that generation's prompt (its first
   * `promptTokens` ids), its first `generatedTokens` generated tokens, then the tokens this request
   * adds (at least one). Everything after the prompt is fed one token at a time, as the generation
   * fed it, so the numbers are the generation's own; when that generation kept its state
   * (`keepState`, same prompt, route, silenced MLPs and perturbation) the engine starts from its
   * caches rather than computing them again, and otherwise computes them (the same numbers).
   * Charged for the tokens it adds and generates only: the rest is the generation's.
   */
  continues?: { promptTokens: number; generatedTokens: number };
  /** Keep this generation's KV caches when it finishes, for requests that continue it (a bounded store, least recently used dropped first). */
  keepState?: boolean;
}

/**
 * The next-token distribution a generated token was chosen from, at temperature 1 (log softmax of
 * the raw logits): its entropy in nats and its k most likely tokens as [token id, log-probability],
 * most likely first.
 */
export interface TokenStep {
  entropy: number;
  top: [number, number][];
}

/** Cost counters of one generation (design: budget accounting). */
export interface GenerationCost {
  /** Tokens generated (including the eos token when one was produced). */
  generatedTokens: number;
  /** Route length × tokens processed (prompt + generated). */
  blockApplications: number;
}

export interface Generation {
  /** Generated token ids (the eos token, if produced, is included). */
  tokens: number[];
  /** Decoded text of the generated tokens, special tokens removed, cut at a stop string. */
  text: string;
  /** Log-prob of each generated token under the distribution it was sampled from (temperature 1 scale: log softmax of raw logits). */
  logprobs: number[];
  finishReason: FinishReason;
  cost: GenerationCost;
  /** One step per generated token, when the request asked for a token record. */
  tokenRecord?: TokenStep[];
  /** Only when the request asked (`pooledAfterBlock`): the prompt's mean residual after that block, H values. */
  pooledState?: number[];
}

/** A continuation to score by teacher forcing: its tokens fed after the prompt, one forward pass. */
export interface ScoreRequest {
  promptIds: readonly number[];
  /** The tokens whose log-probabilities are wanted, each given the prompt and the ones before it. */
  continuationIds: readonly number[];
  route?: Route;
}

export interface ContinuationScore {
  /** log p(continuationIds[j] | prompt, continuationIds[<j]), log softmax of the raw logits (temperature 1). */
  logprobs: number[];
  /** Route length × tokens processed, as a generation's cost counts them. */
  blockApplications: number;
}

/** How a generate call is queued among others running at the same time. */
export interface GenerateOptions {
  /** Lower is served first; equal priorities in call order. Default 0. */
  priority?: number;
}

/** A chat message for the model's chat template. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * Extra variables for the chat template (vLLM's `chat_template_kwargs`, e.g. Qwen3's
 * `{"enable_thinking": false}`), JSON values.
 */
export type TemplateKwargs = Readonly<Record<string, unknown>>;

/** A prompt before it is tokenized: messages for the chat template (with its extra variables), or raw text. */
export type PromptSource = { chat: readonly ChatMessage[]; templateKwargs?: TemplateKwargs; templateDate?: string } | { raw: string };

/** The context a sequence must fit in, from the model's config (checked by text/contextLength.ts). */
export interface ModelContext {
  /** max_position_embeddings: the most positions (prompt + generated) one sequence may use. */
  maxPositions: number;
  /**
   * Mistral's sliding attention window, when set: each position attends to at most this many
   * earlier ones. It narrows attention; it does not shorten the context.
   */
  slidingWindow?: number;
}

/** What the audit layer needs from a loaded model. Implemented by the engine; faked in audit unit tests. */
export interface TextGenerator {
  /** Number of decoder blocks L. */
  readonly numBlocks: number;
  /** How the local engine stores its projection weights ('f32' when absent, e.g. a remote engine). */
  readonly weights?: 'f32' | 'int8';
  /** How the local engine's KV cache stores keys and values ('f32' when absent, e.g. a remote engine). */
  readonly kvCache?: 'f32' | 'f16';
  /** The context a sequence must fit in (prompt + new tokens); absent when the backend does not say. */
  readonly context?: ModelContext;
  /**
   * Render messages with the model's chat template (add_generation_prompt = true) and tokenize;
   * `templateKwargs` are further template variables, refused (InputError) when the template reads none of that name;
   * `templateDate` (YYYY-MM-DD) is the day strftime_now answers with (default: today, UTC).
   */
  encodeChat(messages: readonly ChatMessage[], templateKwargs?: TemplateKwargs, templateDate?: string): number[];
  /** The chat template calls strftime_now, so its prompts depend on the date (absent: it does not, or the generator cannot say). */
  readonly templateReadsDate?: boolean;
  /** Tokenize raw text (special tokens such as bos added as the tokenizer's post-processor says). */
  encodeRaw(text: string): number[];
  /** Tokenize a piece of generated text, no special tokens added (absent in test fakes: encodeRaw is used). */
  encodeText?(text: string): number[];
  decode(ids: readonly number[]): string;
  /**
   * The fewest tokens the prompt can encode to, known from its length without tokenizing it (0
   * when the tokenizer gives no such bound), so that a prompt far too long for the context is
   * refused before the tokenizer spends minutes and gigabytes on it.
   */
  tokensAtLeast?(prompt: PromptSource): number;
  /**
   * Generate all requests, batched as the engine sees fit; calls made while others run may share
   * their batches. Results are in request order.
   */
  generate(requests: readonly GenerationRequest[], signal?: AbortSignal, options?: GenerateOptions): Promise<Generation[]>;
  /**
   * Tokens generated since the model loaded, counted as each step chooses them (sequences cancelled
   * mid-way included), so progress can show tokens/s within seconds rather than when a call returns.
   * Absent where the backend cannot see its steps (a remote server).
   */
  readonly tokensGenerated?: number;
  /**
   * Teacher-forced log-probabilities of continuations (the route search's gold-answer reward). Only
   * the local engine has it: a server's completion API cannot score a given continuation.
   */
  scoreContinuations?(requests: readonly ScoreRequest[]): Promise<ContinuationScore[]>;
}
