/**
 * The on-disk graph cache: one folder per (weights content hash, engine version, graph variant,
 * model config). A folder is built under a temporary name and renamed into place only when every
 * file is written and synced, so an aborted or failed build never leaves a folder a later load
 * would trust. A second load of the same model finds the folder and builds nothing.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ModelConfig } from './config';
import type { WeightNames, WeightStore } from './weights';
import { ExternalDataFile } from './graphBuilder';
import { buildBlockGraph, type GraphVariant } from './blockGraph';
import { buildHeadGraph } from './headGraph';

/** Bump when the graphs or their file layout change: old cache folders are then ignored. */
export const ENGINE_VERSION = 'reach-audit-engine-3';

const MANIFEST = 'manifest.json';

/** What a finished cache folder holds. */
export interface GraphManifest {
  key: string;
  engineVersion: string;
  numBlocks: number;
  hiddenSize: number;
  vocabSize: number;
  /** F32 [vocab, hidden] embedding table, row-major; read row by row for the token lookup. */
  embedFile: string;
  blockFiles: string[];
  headFile: string;
}

export function defaultCacheRoot(): string {
  return process.env.REACH_AUDIT_CACHE || path.join(os.homedir(), '.cache', 'reach-audit', 'graphs');
}

export function cacheKey(contentHash: string, config: ModelConfig, variant: GraphVariant): string {
  const h = crypto.createHash('sha256');
  h.update(JSON.stringify({ contentHash, engine: ENGINE_VERSION, variant, config }));
  return h.digest('hex').slice(0, 32);
}

function readManifest(dir: string, key: string): GraphManifest | null {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), 'utf8')) as GraphManifest;
    if (m.key !== key || m.engineVersion !== ENGINE_VERSION) return null;
    const files = [m.embedFile, m.headFile, ...m.blockFiles];
    return files.every((f) => fs.existsSync(path.join(dir, f))) ? m : null;
  } catch {
    return null;
  }
}

export interface EnsureGraphsInput {
  cacheRoot: string;
  store: WeightStore;
  names: WeightNames;
  config: ModelConfig;
  variant: GraphVariant;
  onProgress?: (message: string) => void;
}

export interface CachedGraphs {
  dir: string;
  manifest: GraphManifest;
  /** True when this call built the folder (false: found in the cache). */
  built: boolean;
}

/** Returns the cache folder for this model, building it first when absent. */
export function ensureGraphs({ cacheRoot, store, names, config, variant, onProgress }: EnsureGraphsInput): CachedGraphs {
  const key = cacheKey(store.contentHash(), config, variant);
  const dir = path.join(cacheRoot, key);
  const found = readManifest(dir, key);
  if (found) return { dir, manifest: found, built: false };

  fs.mkdirSync(cacheRoot, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(cacheRoot, `.building-${key}-`));
  try {
    const manifest = writeGraphs(tmp, key, store, names, config, variant, onProgress);
    fs.writeFileSync(path.join(tmp, MANIFEST), JSON.stringify(manifest, null, 2));
    const theirs = readManifest(dir, key);
    if (theirs) {
      // Another process finished the same folder while we built: keep theirs, it may be in use.
      fs.rmSync(tmp, { recursive: true, force: true });
      return { dir, manifest: theirs, built: false };
    }
    // A folder without a valid manifest was damaged by hand (our renames are atomic): replace it.
    if (fs.existsSync(dir)) fs.rmSync(dir, { recursive: true, force: true });
    try {
      fs.renameSync(tmp, dir);
    } catch (err) {
      // Another process finished the same folder first: use theirs.
      const theirs = readManifest(dir, key);
      if (!theirs) throw err;
      fs.rmSync(tmp, { recursive: true, force: true });
      return { dir, manifest: theirs, built: false };
    }
    return { dir, manifest, built: true };
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

function writeGraphs(
  dir: string,
  key: string,
  store: WeightStore,
  names: WeightNames,
  config: ModelConfig,
  variant: GraphVariant,
  onProgress?: (message: string) => void,
): GraphManifest {
  const read = (name: string): Float32Array => store.read(name);
  const H = config.hiddenSize;
  const V = config.vocabSize;

  onProgress?.('writing embedding table');
  const embedFile = 'embed.bin';
  const embed = new ExternalDataFile(path.join(dir, embedFile), embedFile);
  const embedData = read(names.embed);
  const [embedOffset, embedLength] = embed.append(embedData);
  embed.close();

  const blockFiles: string[] = [];
  for (let i = 0; i < config.numBlocks; i++) {
    onProgress?.(`building block ${i + 1}/${config.numBlocks}`);
    const data = new ExternalDataFile(path.join(dir, `block_${i}.bin`), `block_${i}.bin`);
    const bytes = buildBlockGraph({ config, index: i, weights: names.blocks[i], read, data, variant });
    data.close();
    fs.writeFileSync(path.join(dir, `block_${i}.onnx`), bytes);
    blockFiles.push(`block_${i}.onnx`);
  }

  onProgress?.('building head');
  const headData = new ExternalDataFile(path.join(dir, 'head.bin'), 'head.bin');
  let lmHead;
  if (names.lmHead === names.embed) {
    lmHead = { location: embedFile, offset: embedOffset, length: embedLength, dims: [V, H] };
  } else {
    const [offset, length] = headData.append(read(names.lmHead));
    lmHead = { location: 'head.bin', offset, length, dims: [V, H] };
  }
  const headBytes = buildHeadGraph({ config, finalNorm: read(names.finalNorm), lmHead, data: headData, variant });
  headData.close();
  fs.writeFileSync(path.join(dir, 'head.onnx'), headBytes);

  return {
    key,
    engineVersion: ENGINE_VERSION,
    numBlocks: config.numBlocks,
    hiddenSize: H,
    vocabSize: V,
    embedFile,
    blockFiles,
    headFile: 'head.onnx',
  };
}
