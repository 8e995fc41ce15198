/**
 * The folder a model's tokenizer files are read from: the model folder itself, or another folder
 * named explicitly with `--tokenizer-from DIR`. Trainers (the Hugging Face Trainer among them) often
 * save checkpoints without tokenizer files; their tokenizer is then the base model's, but which
 * folder that is is the user's to say: it is never guessed from neighbouring folders.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError } from '../../common';
import { TOKENIZER_FILE } from './tokenizer';

const EXPECTED = `expected a folder holding the model's ${TOKENIZER_FILE} (and tokenizer_config.json with its chat template), such as the base model's folder`;

/** The tokenizer folder for `modelDir`: `tokenizerFrom` (absolute) when given and usable, else the model folder. */
export function tokenizerFolder(modelDir: string, tokenizerFrom: string | undefined): string {
  if (tokenizerFrom === undefined) return modelDir;
  const dir = path.resolve(tokenizerFrom);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`--tokenizer-from ${dir}: ${code === 'ENOENT' ? 'no such folder' : `cannot be read (${code ?? String(err)})`}; ${EXPECTED}`);
  }
  if (!stat.isDirectory()) throw new InputError(`--tokenizer-from ${dir}: not a folder; ${EXPECTED}`);
  if (!fs.existsSync(path.join(dir, TOKENIZER_FILE))) throw new InputError(`--tokenizer-from ${dir}: it holds no ${TOKENIZER_FILE}; ${EXPECTED}`);
  return dir;
}
