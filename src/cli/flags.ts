/**
 * Flag parsing shared by the engine commands (forward, generate, bench): node:util parseArgs in
 * strict mode, with every failure turned into a UsageError that names the flag.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './command';
import { checkRoute, checkSilenced, parseWeightPrecision, parseKvPrecision, type Route, type TextGenerator } from '../engine/index';

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs' message as one line; a value that starts with '-' (`--shard -1/2`) is named with its flag. */
function usageMessage(err: unknown, args: readonly string[]): string {
  const message = err instanceof Error ? err.message : String(err);
  const ambiguous = /^Option '(--[\w-]+)[^']*' argument is ambiguous/.exec(message);
  if (ambiguous) {
    const flag = ambiguous[1];
    const value = args[args.indexOf(flag) + 1] ?? '';
    return `${flag}: the value '${value}' starts with '-' and reads as an option; if it is the value you mean, write ${flag}=${value}`;
  }
  return message.split('\n')[0];
}

/** parseArgs, strict, no positionals; its TypeErrors become UsageErrors. */
export function parseFlags<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError(usageMessage(err, args));
  }
}

/** parseArgs, strict, with positionals (folders); its TypeErrors become UsageErrors. */
export function parseFlagsAndFolders<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (err) {
    throw new UsageError(usageMessage(err, args));
  }
}

/** "0,1,1,3" → [0,1,1,3]; anything else (empty, non-integers, negatives) names the flag. */
export function parseIndexList(value: string, flag: string, what: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  if (value.trim() === '' || parts.some((p) => !/^\d+$/.test(p))) {
    throw new UsageError(`${flag}: expected a comma-separated list of ${what} like 0,1,2, got '${value}'`);
  }
  return parts.map(Number);
}

export function parseNumber(value: string | undefined, flag: string, check: (n: number) => boolean, expected: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || !check(n)) throw new UsageError(`${flag}: expected ${expected}, got '${value}'`);
  return n;
}

export function parseWholeNumber(value: string | undefined, flag: string, min = 0): number | undefined {
  return parseNumber(value, flag, (n) => Number.isInteger(n) && n >= min, `a whole number >= ${min}`);
}

/**
 * A --route or --silence-mlp value as its elements: "0,1,1,3", or a JSON array as records.jsonl
 * stores a route ("[0,1,1,3]"). Elements go to the engine's block checks as written (0.5, "x",
 * Infinity for 1e999), so a bad one is named by its position, as a route from a request body is.
 */
function blockList(value: string, flag: string): unknown[] {
  const text = value.trim();
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  if (text === '') throw new UsageError(`${flag}: expected a list of block indices like 0,1,2, got ''`);
  if (!text.startsWith('[')) return text.split(',').map((p) => (/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(p.trim()) ? Number(p) : p.trim()));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed)) throw new UsageError(`${flag}: expected a list of block indices like 0,1,2 or a JSON array like [0,1,2], got '${shown}'`);
  return parsed;
}

/** Route and silenced list, range-checked against the model's block count (before any load). */
export function routeFlags(
  values: { route?: string; 'silence-mlp'?: string },
  numBlocks: number,
): { route?: Route; silencedMlp?: number[] } {
  // The elements are unchecked here; checkRoute and checkSilenced check each one and name it.
  const route = values.route === undefined ? undefined : checkRoute(blockList(values.route, '--route') as number[], numBlocks, '--route');
  const silenced = values['silence-mlp'] === undefined
    ? undefined
    : [...checkSilenced(blockList(values['silence-mlp'], '--silence-mlp') as number[], numBlocks, '--silence-mlp')];
  return { route, silencedMlp: silenced };
}

export const MODEL_FLAGS = {
  model: { type: 'string' },
  threads: { type: 'string' },
  'cache-dir': { type: 'string' },
  weights: { type: 'string' },
  'kv-cache': { type: 'string' },
  'tokenizer-from': { type: 'string' },
} as const;

/** --weights f32|int8 (undefined when not given: f32). */
export const parseWeights = parseWeightPrecision;

/** --kv-cache f32|f16 (undefined when not given: f32). */
export const parseKvCache = parseKvPrecision;

export const WEIGHTS_HELP = '  --weights P          f32 (default) or int8: quantized weights by the processor\'s integer path (AVX2\n                       without VNNI: 7-bit, a scale per output, activations per row; else 8-bit, a\n                       scale per 32); the path is recorded in the manifest';

/** Flags shared by forward and generate: what to feed and which route / silenced MLPs to run it under. */
export const PROMPT_FLAGS = {
  prompt: { type: 'string' },
  raw: { type: 'boolean' },
  'chat-template-kwargs': { type: 'string' },
  route: { type: 'string' },
  'silence-mlp': { type: 'string' },
} as const;

/** Tokenizes --prompt with the chat template (one user message; --chat-template-kwargs its variables), or as is with --raw. */
export function encodePrompt(model: TextGenerator, prompt: string, raw: boolean | undefined, templateKwargs?: string): number[] {
  let kwargs: Record<string, unknown> | undefined;
  if (templateKwargs !== undefined) {
    if (raw) throw new UsageError('--chat-template-kwargs sets chat-template variables; --raw has no template');
    try {
      kwargs = JSON.parse(templateKwargs) as Record<string, unknown>;
    } catch {
      throw new UsageError(`--chat-template-kwargs ${templateKwargs}: not JSON; expected an object such as '{"enable_thinking": false}'`);
    }
    if (typeof kwargs !== 'object' || kwargs === null || Array.isArray(kwargs)) throw new UsageError(`--chat-template-kwargs ${templateKwargs}: expected a JSON object such as '{"enable_thinking": false}'`);
  }
  const ids = raw ? model.encodeRaw(prompt) : model.encodeChat([{ role: 'user', content: prompt }], kwargs);
  if (ids.length === 0) throw new UsageError('--prompt: the prompt encodes to no tokens');
  return ids;
}

export const MODEL_FLAGS_HELP = [
  '  --model DIR          Hugging Face model folder (config.json, safetensors, tokenizer.json)',
  '  --threads N          onnxruntime threads (default: all cores)',
  '  --cache-dir DIR      graph cache (default: $REACH_AUDIT_CACHE or ~/.cache/reach-audit/graphs)',
  WEIGHTS_HELP,
  '  --kv-cache P         f32 (default) or f16: KV cache stored in binary16 (half the memory), attention',
  '                       computed in f32 (each call converts the cache: slower per token)',
  '  --tokenizer-from DIR tokenizer files from DIR, for a checkpoint saved without them (its base model)',
];

export function requireModel(values: { model?: string }): string {
  if (!values.model) throw new UsageError('--model: expected a model folder');
  return values.model;
}

/** Progress lines go to stderr (so stdout stays machine-readable), and only to a terminal. */
export function progressToStderr(): ((m: string) => void) | undefined {
  return process.stderr.isTTY ? (m: string) => process.stderr.write(`reach-audit: ${m}\n`) : undefined;
}
