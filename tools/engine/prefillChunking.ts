/**
 * A long prompt prefilled in one call against the engine's chunks (src/engine/decode/prefillChunks.ts):
 * what the chunks cost and save, and how far their numbers move.
 *
 *   run      one process, one setting: a `--prompt-tokens` prompt (deterministic ids), greedy
 *            `--new-tokens`, through `generate` as an audit runs it; prints the prefill's time, the
 *            decode tokens/s, the process's peak RSS (VmHWM, reset before the model loads), the
 *            tokens and their log-probs, as one JSON line (also to --json FILE). `--one-call-tokens
 *            N` sets where chunking starts (a number above the prompt's length: the one-call prefill
 *            every prompt had before); default the engine's.
 *   compare  two `run` files of the same prompt: greedy agreement (greedyAgreement.ts: identical
 *            sequences, tokens before the first divergence, |Δ log-prob| over the shared tokens).
 *
 * Usage (after `npx tsc -p .`):
 *   node out/tools/engine/prefillChunking.js run (--model DIR | --random-qwen-0.5b) [--prompt-tokens 8160]
 *     [--new-tokens 32] [--threads 2] [--one-call-tokens N] [--json FILE]
 *   node out/tools/engine/prefillChunking.js compare ONE_CALL.json CHUNKED.json
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PREFILL_CHUNKING, type PrefillChunking, prefillChunks } from '../../src/engine/decode/prefillChunks';
import { capacityFor } from '../../src/engine/decode/kvCache';
import { loadModel } from '../../src/engine/index';
import { writeRandomQwen05bModel } from '../../src/bench/randomBenchModel';
import { peakRss, resetPeakRss } from '../../src/bench/peakRss';
import { greedyAgreement, greedyAgreementText } from '../../src/service';

interface RunFigures {
  model: string;
  promptTokens: number;
  newTokens: number;
  threads: number;
  oneCallTokens: number;
  /** Calls per block the prompt ran in. */
  calls: number;
  prefillMs: number;
  decodeTokensPerSecond: number;
  peakRssBytes: number;
  tokens: number[];
  logprobs: number[];
  cpu: string;
  loadavg: number[];
}

function fail(message: string): never {
  process.stderr.write(`prefillChunking: ${message}\n`);
  process.exit(2);
}

const positive = (text: string, what: string): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) fail(`${what}: expected a positive integer, got ${text}`);
  return n;
};

async function run(args: string[]): Promise<void> {
  const { values: v } = parseArgs({
    args,
    options: {
      model: { type: 'string' }, 'random-qwen-0.5b': { type: 'boolean' },
      'prompt-tokens': { type: 'string', default: '8160' }, 'new-tokens': { type: 'string', default: '32' },
      threads: { type: 'string', default: '2' }, 'one-call-tokens': { type: 'string' }, json: { type: 'string' },
    },
  });
  if (!v.model === !v['random-qwen-0.5b']) fail('expected exactly one of --model DIR or --random-qwen-0.5b');
  const promptTokens = positive(v['prompt-tokens']!, '--prompt-tokens');
  const newTokens = positive(v['new-tokens']!, '--new-tokens');
  const threads = positive(v.threads!, '--threads');
  const chunking: PrefillChunking = v['one-call-tokens'] === undefined
    ? DEFAULT_PREFILL_CHUNKING
    : { ...DEFAULT_PREFILL_CHUNKING, oneCallTokens: positive(v['one-call-tokens'], '--one-call-tokens') };
  const dir = v.model ?? writeRandomQwen05bModel(path.join(os.tmpdir(), 'reach-audit-qwen05b-random'), (m) => process.stderr.write(`${m}\n`));

  // Peak RSS from here: the model's load and the run, not whatever came before.
  resetPeakRss();
  const model = await loadModel(dir, { threads, prefillChunking: chunking });
  try {
    const ids = Array.from({ length: promptTokens }, (_, i) => (7 + i * 7919) % Math.min(model.vocabSize - 8, 100000));
    let prefillMs = 0;
    const decodeMs: number[] = [];
    model.onStep = (s) => { if (s.prefill) prefillMs += s.ms; else decodeMs.push(s.ms); };
    const calls = prefillChunks(promptTokens, capacityFor(promptTokens + 1), chunking).length;
    process.stderr.write(`${promptTokens}-token prompt in ${calls} call(s) per block, then ${newTokens} greedy tokens…\n`);
    const [out] = await model.generate([{ promptIds: ids, maxNewTokens: newTokens, decoding: { temperature: 0, topP: 1, seed: 0 } }]);
    const figures: RunFigures = {
      model: dir, promptTokens, newTokens, threads, oneCallTokens: chunking.oneCallTokens,
      calls,
      prefillMs,
      decodeTokensPerSecond: decodeMs.length / (decodeMs.reduce((a, b) => a + b, 0) / 1000),
      peakRssBytes: peakRss(),
      tokens: out.tokens, logprobs: out.logprobs,
      cpu: os.cpus()[0]?.model ?? 'unknown', loadavg: os.loadavg(),
    };
    const line = JSON.stringify(figures);
    process.stdout.write(`${line}\n`);
    if (v.json) fs.writeFileSync(v.json, `${line}\n`);
  } finally {
    await model.dispose();
  }
}

function compare(files: string[]): void {
  if (files.length !== 2) fail('compare: expected two run files, the one-call prefill first');
  const [a, b] = files.map((f) => {
    try {
      return JSON.parse(fs.readFileSync(f, 'utf8')) as RunFigures;
    } catch (err) {
      return fail(`${f}: expected the JSON line of a run (${err instanceof Error ? err.message : String(err)})`);
    }
  });
  if (a.promptTokens !== b.promptTokens || a.model !== b.model) fail('compare: the two runs have other prompts or models');
  const agreement = greedyAgreement([{ tokens: a.tokens, logprobs: a.logprobs }], [{ tokens: b.tokens, logprobs: b.logprobs }]);
  process.stdout.write([
    `${a.promptTokens}-token prompt: ${a.calls} call(s) per block (one call up to ${a.oneCallTokens}) against ${b.calls} (one call up to ${b.oneCallTokens})`,
    `prefill          ${(a.prefillMs / 1000).toFixed(1)} s against ${(b.prefillMs / 1000).toFixed(1)} s (${(b.prefillMs / a.prefillMs).toFixed(2)}x)`,
    `decode           ${a.decodeTokensPerSecond.toFixed(2)} against ${b.decodeTokensPerSecond.toFixed(2)} tokens/s`,
    `peak RSS         ${(a.peakRssBytes / 1e9).toFixed(2)} GB against ${(b.peakRssBytes / 1e9).toFixed(2)} GB`,
    `agreement        ${greedyAgreementText(agreement)}`,
  ].join('\n') + '\n');
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'run') run(rest).catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
else if (command === 'compare') compare(rest);
else fail('expected `run` or `compare` (see the header of tools/engine/prefillChunking.ts)');
