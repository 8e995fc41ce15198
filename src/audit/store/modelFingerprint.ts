/**
 * The content hash of a model folder for the run manifest, so `--resume` can tell a changed model
 * from a moved one. sha256 over the name, size and sha256 of every top-level file the engine
 * reads (configs, tokenizer files, safetensors weights and index). Files are streamed, so a large
 * checkpoint costs one read, never its size in memory.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { InputError, openRegularFile } from '../../common';

const MODEL_FILE = /\.(json|safetensors|model|txt|jinja)$/;

function hashFile(file: string): Promise<string> {
  // Opened non-blocking and checked first (boundedRead.ts): a FIFO named like a model file would never end.
  const { fd } = openRegularFile(file, Number.MAX_SAFE_INTEGER);
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    fs.createReadStream(file, { fd })
      .on('data', (chunk) => h.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}

export async function modelContentHash(dir: string): Promise<string> {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => MODEL_FILE.test(n) && fs.statSync(path.join(dir, n)).isFile()).sort();
  } catch (err) {
    throw new InputError(`cannot read the model folder ${dir}: ${(err as Error).message}`);
  }
  const whole = createHash('sha256');
  for (const name of names) {
    const file = path.join(dir, name);
    whole.update(`${name}\0${fs.statSync(file).size}\0${await hashFile(file)}\n`);
  }
  return whole.digest('hex');
}

/**
 * The files the engine reads from a --tokenizer-from folder (engine/text/tokenizer.ts; named here
 * because the engine's entry module would load the runtime into the store).
 */
const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja'];

/**
 * The content hash of a --tokenizer-from folder: sha256 over the name, size and sha256 of the
 * tokenizer files it holds. Only those: the folder is often a base model whose weights would take
 * a minute to hash and are not what a resumed run must share.
 */
export async function tokenizerContentHash(dir: string): Promise<string> {
  const whole = createHash('sha256');
  for (const name of TOKENIZER_FILES) {
    const file = path.join(dir, name);
    if (!fs.existsSync(file)) continue;
    whole.update(`${name}\0${fs.statSync(file).size}\0${await hashFile(file)}\n`);
  }
  return whole.digest('hex');
}
