/**
 * reach-audit forward: last-position logits of a prompt (or token ids) under a route and silenced
 * MLPs. With --json prints {"ids":[...],"logits":[...]} (full vocabulary) for other tools.
 */
import type { Command } from './command';
import { UsageError } from './command';
import { MODEL_FLAGS, MODEL_FLAGS_HELP, PROMPT_FLAGS, encodePrompt, parseFlags, parseIndexList, parseWholeNumber, progressToStderr, requireModel, routeFlags, parseWeights, parseKvCache } from './flags';
import { checkTokenIds, loadModel, readModelConfig } from '../engine/index';

const help = [
  'Usage: reach-audit forward --model DIR (--prompt TEXT | --ids 1,2,3) [options]',
  '',
  'Runs the model once and prints the logits at the last position.',
  '',
  'Options:',
  ...MODEL_FLAGS_HELP,
  '  --prompt TEXT        prompt, rendered with the chat template as one user message',
  '  --raw                tokenize --prompt as is (no chat template)',
  '  --chat-template-kwargs JSON  further chat-template variables, e.g. \'{"enable_thinking": false}\'',
  '  --ids LIST           token ids to feed, e.g. 1,2,3 (instead of --prompt)',
  '  --route LIST         blocks to run, in order, e.g. 0,1,1,3 or [0,1,1,3] (default: every block once)',
  '  --silence-mlp LIST   blocks whose MLP output is zeroed, e.g. 2,5',
  '  --top N              without --json: how many top tokens to list (default 10)',
  '  --json               print {"ids":[...],"logits":[...]}',
].join('\n');

export const forwardCommand: Command = {
  help,
  async run(args) {
    const v = parseFlags(args, {
      ...MODEL_FLAGS,
      ...PROMPT_FLAGS,
      ids: { type: 'string' },
      top: { type: 'string' },
      json: { type: 'boolean' },
    });
    const dir = requireModel(v);
    if ((v.prompt === undefined) === (v.ids === undefined)) throw new UsageError('expected exactly one of --prompt TEXT or --ids LIST');
    const top = parseWholeNumber(v.top, '--top', 1) ?? 10;
    const threads = parseWholeNumber(v.threads, '--threads', 1);
    const parsedIds = v.ids === undefined ? undefined : parseIndexList(v.ids, '--ids', 'token ids');
    // Check everything that only needs config.json before the (possibly graph-building) load.
    const config = readModelConfig(dir);
    const routing = routeFlags(v, config.numBlocks);
    if (parsedIds) checkTokenIds(parsedIds, config.vocabSize, '--ids');

    const model = await loadModel(dir, { cacheDir: v['cache-dir'], threads, weights: parseWeights(v.weights), kvCache: parseKvCache(v['kv-cache']), tokenizerDir: v['tokenizer-from'], onProgress: progressToStderr() });
    try {
      const ids = parsedIds ?? encodePrompt(model, v.prompt as string, v.raw, v['chat-template-kwargs']);
      const logits = await model.forward(ids, routing);
      if (v.json) {
        process.stdout.write(JSON.stringify({ ids, logits: Array.from(logits) }) + '\n');
      } else {
        const order = Array.from(logits.keys()).sort((a, b) => logits[b] - logits[a] || a - b).slice(0, top);
        process.stdout.write(`ids (${ids.length}): ${ids.join(',')}\n`);
        process.stdout.write(`top ${order.length} next tokens:\n`);
        for (const id of order) process.stdout.write(`  ${String(id).padStart(7)}  ${logits[id].toFixed(4).padStart(10)}  ${JSON.stringify(model.decode([id]))}\n`);
      }
      return 0;
    } finally {
      await model.dispose();
    }
  },
};
