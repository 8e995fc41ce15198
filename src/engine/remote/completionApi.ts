/**
 * The slice of the OpenAI completions API that Reach Audit speaks, on both sides: the remote
 * backend sends these requests, `reach-audit serve --http` answers them. Servers such as vLLM,
 * SGLang, TGI, llama.cpp's server and Ollama accept the standard fields; `route` and
 * `silenced_mlp` are this project's documented extensions (only our own server honours them, and
 * it says so on its health endpoint), `return_token_ids` is vLLM's.
 */

/** POST /v1/completions body, as far as we send or accept it. */
export interface CompletionRequestBody {
  model: string;
  /** Token ids (exactly the locally rendered prompt) or text. */
  prompt: number[] | string;
  max_tokens: number;
  temperature: number;
  top_p: number;
  seed?: number;
  stop?: string[];
  /** Number of top log-probs per position; 0 or more asks for the chosen tokens' log-probs. */
  logprobs?: number | null;
  n?: number;
  stream?: boolean;
  /** vLLM: also return the generated token ids. */
  return_token_ids?: boolean;
  /** Extension: block indices executed in order (identity when absent). */
  route?: number[];
  /** Extension: blocks whose MLP output is zeroed. */
  silenced_mlp?: number[];
  /** Extension: a seeded random direction added to the residual after one block (the engine's ResidualPerturbation). */
  residual_perturbation?: { after_block: number; seed: number; scale: number; positions: string };
  /** Extension: keep a token record of this many most likely tokens per generated token (the engine's GenerationRequest.tokenRecord). */
  token_record?: number;
  /** Extension: also return the prompt's mean residual after this block (the engine's pooledAfterBlock). */
  pooled_state_after_block?: number;
  /** Extension: the prompt continues a generation of its first prompt_tokens ids, with its first generated_tokens tokens (the engine's continues). */
  continues?: { prompt_tokens: number; generated_tokens: number };
  /** Extension: keep this generation's state for requests that continue it (the engine's keepState). */
  keep_state?: boolean;
}

export interface CompletionChoice {
  index: number;
  text: string;
  finish_reason: string | null;
  logprobs?: {
    tokens?: string[];
    token_logprobs?: (number | null)[];
    top_logprobs?: unknown;
    text_offset?: number[];
  } | null;
  /** vLLM and our server: the generated token ids. */
  token_ids?: number[] | null;
  /** Our server, when the request asked for token_record: per generated token its entropy and [token id, log-probability] pairs. */
  token_record?: { entropy: number[]; top: [number, number][][] } | null;
  /** Our server, when asked (`pooled_state_after_block`): the prompt's mean residual after that block. */
  pooled_state?: number[];
}

export interface CompletionResponseBody {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  choices: CompletionChoice[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** GET /health of `reach-audit serve --http`: what a client needs to trust layer extensions. */
export interface HealthBody {
  status: 'ok';
  model: string;
  reach_audit: {
    /** Protocol of the extensions; a client refuses a server whose version it does not know. */
    extensions_version: number;
    extensions: string[];
    num_blocks: number;
    max_position_embeddings: number;
  };
}

export const EXTENSIONS_VERSION = 1;
export const LAYER_EXTENSIONS = ['route', 'silenced_mlp'] as const;
/** Announced apart from the layer extensions: a server without it still serves routes and repair, and refuses only the perturbation probe. */
export const PERTURBATION_EXTENSION = 'residual_perturbation';
/** Announced apart likewise: a server without it refuses only the fork probe. */
export const TOKEN_RECORD_EXTENSION = 'token_record';
/** Announced apart likewise (the fork probe's branches continue the deployed generation): `continues` and `keep_state`. */
export const CONTINUES_EXTENSION = 'continues';
