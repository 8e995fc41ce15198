/**
 * reach-audit generate: decode a continuation of one prompt under a route and silenced MLPs.
 * Prints the text; with --json {"ids","tokens","text","finishReason"} (ids = prompt ids).
 */
import type { Command } from './command';
import { UsageError } from './command';
import { MODEL_FLAGS, MODEL_FLAGS_HELP, PROMPT_FLAGS, encodePrompt, parseFlags, parseNumber, parseWholeNumber, progressToStderr, requireModel, routeFlags, parseWeights, parseKvCache } from './flags';
import { loadModel, readModelConfig } from '../engine/index';

const help = [
  'Usage: reach-audit generate --model DIR --prompt TEXT [options]',
  '',
  'Generates a continuation (greedy by default) and prints it.',
  '',
  'Options:',
  ...MODEL_FLAGS_HELP,
  '  --prompt TEXT          prompt, rendered with the chat template as one user message',
  '  --raw                  tokenize --prompt as is (no chat template)',
  '  --chat-template-kwargs JSON  further chat-template variables, e.g. \'{"enable_thinking": false}\'',
  '  --route LIST           blocks to run, in order, e.g. 0,1,1,3 or [0,1,1,3] (default: every block once)',
  '  --silence-mlp LIST     blocks whose MLP output is zeroed, e.g. 2,5',
  '  --max-new-tokens N     token budget (default 256)',
  '  --temperature T        0 = greedy (default 0)',
  '  --top-p P              nucleus sampling mass in (0, 1] (default 1)',
  '  --seed S               sampling seed, a whole number (default 0)',
  '  --stop TEXT            stop when the output contains TEXT (repeatable)',
  '  --json                 print {"ids","tokens","text","finishReason"}',
].join('\n');

export const generateCommand: Command = {
  help,
  async run(args) {
    const v = parseFlags(args, {
      ...MODEL_FLAGS,
      ...PROMPT_FLAGS,
      'max-new-tokens': { type: 'string' },
      temperature: { type: 'string' },
      'top-p': { type: 'string' },
      seed: { type: 'string' },
      stop: { type: 'string', multiple: true },
      json: { type: 'boolean' },
    });
    const dir = requireModel(v);
    if (v.prompt === undefined) throw new UsageError('--prompt: expected the prompt text');
    const maxNewTokens = parseWholeNumber(v['max-new-tokens'], '--max-new-tokens') ?? 256;
    const temperature = parseNumber(v.temperature, '--temperature', (n) => n >= 0, 'a number >= 0') ?? 0;
    const topP = parseNumber(v['top-p'], '--top-p', (n) => n > 0 && n <= 1, 'a number in (0, 1]') ?? 1;
    const seed = parseNumber(v.seed, '--seed', (n) => Number.isInteger(n), 'a whole number') ?? 0;
    const threads = parseWholeNumber(v.threads, '--threads', 1);
    const config = readModelConfig(dir);
    const routing = routeFlags(v, config.numBlocks);

    const model = await loadModel(dir, { cacheDir: v['cache-dir'], threads, weights: parseWeights(v.weights), kvCache: parseKvCache(v['kv-cache']), tokenizerDir: v['tokenizer-from'], onProgress: progressToStderr() });
    try {
      const ids = encodePrompt(model, v.prompt, v.raw, v['chat-template-kwargs']);
      const [g] = await model.generate([{ promptIds: ids, ...routing, maxNewTokens, decoding: { temperature, topP, seed }, stop: v.stop }]);
      if (v.json) {
        process.stdout.write(JSON.stringify({ ids, tokens: g.tokens, text: g.text, finishReason: g.finishReason }) + '\n');
      } else {
        process.stdout.write(g.text + '\n');
      }
      return 0;
    } finally {
      await model.dispose();
    }
  },
};
