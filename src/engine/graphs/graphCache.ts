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
import type { ModelConfig } from '../checkpoint/config';
import { assertFiniteWeights, type WeightNames, type WeightStore } from '../checkpoint/weights';
import { ExternalDataFile } from './graphBuilder';
import { buildBlockGraph, type GraphVariant } from './blockGraph';
import { buildHeadGraph } from './headGraph';
import type { WeightPrecision } from '../checkpoint/weightPrecision';
import type { KvPrecision } from '../decode/kvPrecision';
import { describeHolder, FolderLockedError, lockFolder, type FolderLock, createFolder } from '../../common';

/**
 * Bump when the graphs, their file layout, or the numbers the engine computes with them change:
 * old cache folders are then ignored, and a run's manifest records it, so a run is never resumed
 * by an engine that computes other numbers. 10: prompts over 2,048 tokens prefilled in chunks
 * (prefillChunks.ts); the graphs are those of 9.
 */
export const ENGINE_VERSION = 'reach-audit-engine-10';

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
  /** Projection weights of these graphs. */
  weights: WeightPrecision;
  /** KV cache storage the block graphs read and write; absent: f32. */
  kvCache?: KvPrecision;
  /** Size and sha256 of every file, by name. */
  files: Record<string, CachedFileCheck>;
}

export function defaultCacheRoot(): string {
  return process.env.REACH_AUDIT_CACHE || path.join(os.homedir(), '.cache', 'reach-audit', 'graphs');
}

export function cacheKey(contentHash: string, config: ModelConfig, variant: GraphVariant): string {
  const h = crypto.createHash('sha256');
  h.update(JSON.stringify({ contentHash, engine: ENGINE_VERSION, variant, config }));
  return h.digest('hex').slice(0, 32);
}

/** Size and sha256 of one cache file, recorded at build and checked at every load. */
export interface CachedFileCheck {
  bytes: number;
  sha256: string;
}

type Found = { manifest: GraphManifest } | { problem: string } | undefined;

/** sha256 of a file, read in chunks (a cache file may be gigabytes). */
export function hashFileSync(file: string): string {
  const h = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(8 << 20);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      h.update(buf.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  return h.digest('hex');
}

/**
 * The cache folder's manifest when every file it lists has the size and hash recorded at build;
 * a problem naming the file otherwise; undefined when there is no folder.
 */
function verifiedManifest(dir: string, key: string): Found {
  if (!fs.existsSync(dir)) return undefined;
  let m: GraphManifest;
  try {
    m = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), 'utf8')) as GraphManifest;
  } catch (err) {
    return { problem: (err as NodeJS.ErrnoException).code === 'ENOENT' ? `${MANIFEST} is missing` : `${MANIFEST} is unreadable (${(err as Error).message})` };
  }
  if (m.key !== key || m.engineVersion !== ENGINE_VERSION) return { problem: `${MANIFEST} belongs to another build` };
  if (typeof m.files !== 'object' || m.files === null) return { problem: `${MANIFEST} records no file sizes and hashes (an older build)` };
  for (const f of [m.embedFile, m.headFile, ...m.blockFiles, ...Object.keys(m.files)]) {
    const want = m.files[f];
    if (!want) return { problem: `${f} has no recorded size and hash` };
    const file = path.join(dir, f);
    let bytes: number;
    try {
      bytes = fs.statSync(file).size;
    } catch {
      return { problem: `${f} is missing` };
    }
    if (bytes !== want.bytes) return { problem: `${f} has ${bytes} bytes, ${want.bytes} were written` };
    if (hashFileSync(file) !== want.sha256) return { problem: `${f} does not match the sha256 recorded when it was built` };
  }
  return { manifest: m };
}

export interface EnsureGraphsInput {
  cacheRoot: string;
  store: WeightStore;
  names: WeightNames;
  config: ModelConfig;
  variant: GraphVariant;
  onProgress?: (message: string) => void;
  /** Things the user should know: a damaged entry rebuilt, a wait for another process's build. */
  onWarning?: (message: string) => void;
}

export interface CachedGraphs {
  dir: string;
  manifest: GraphManifest;
  /** True when this call built the folder (false: found in the cache). */
  built: boolean;
  /** Why an existing entry was rebuilt (it failed verification). */
  rebuilt?: string;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Returns the cache folder for this model, building it first when absent or damaged. One process
 * builds a given entry at a time (a lock in the cache root); another waits for it, then uses its
 * result.
 */
export function ensureGraphs({ cacheRoot, store, names, config, variant, onProgress, onWarning }: EnsureGraphsInput): CachedGraphs {
  const key = cacheKey(store.contentHash(), config, variant);
  const dir = path.join(cacheRoot, key);
  const found = verifiedManifest(dir, key);
  if (found && 'manifest' in found) return { dir, manifest: found.manifest, built: false };

  createFolder(cacheRoot, 'the graph cache');
  const lockName = `.building-${key}.lock`;
  let lock: FolderLock | undefined;
  let waitingSince: number | undefined;
  while (!lock) {
    try {
      lock = lockFolder(cacheRoot, { lockName, purpose: 'building model graphs', advice: 'waiting for that build' });
    } catch (err) {
      if (!(err instanceof FolderLockedError)) throw err;
      if (waitingSince === undefined) {
        waitingSince = Date.now();
        onWarning?.(`${dir} is being built by ${describeHolder(err.holder)}; waiting for it to finish`);
      }
      sleepSync(250);
    }
  }
  try {
    if (waitingSince !== undefined || found) {
      // Built (or repaired) by the process we waited for, or by one that finished meanwhile.
      const now = verifiedManifest(dir, key);
      if (now && 'manifest' in now) return { dir, manifest: now.manifest, built: false };
    }
    const problem = found && 'problem' in found ? found.problem : undefined;
    if (problem) onWarning?.(`graph cache entry ${dir} is damaged (${problem}); rebuilding it`);
    const tmp = fs.mkdtempSync(path.join(cacheRoot, `.building-${key}-`));
    try {
      const manifest = writeGraphs(tmp, key, store, names, config, variant, onProgress);
      fs.writeFileSync(path.join(tmp, MANIFEST), JSON.stringify(manifest, null, 2));
      if (fs.existsSync(dir)) fs.rmSync(dir, { recursive: true, force: true });
      fs.renameSync(tmp, dir);
      return { dir, manifest, built: true, ...(problem ? { rebuilt: problem } : {}) };
    } catch (err) {
      fs.rmSync(tmp, { recursive: true, force: true });
      throw err;
    }
  } finally {
    lock.release();
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
  // Every weight the graphs use passes through here once: non-finite values stop the build.
  const read = (name: string): Float32Array => assertFiniteWeights(store, name, store.read(name));
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
  if (variant.weights === 'int8') {
    lmHead = names.lmHead === names.embed ? embedData : read(names.lmHead);
  } else if (names.lmHead === names.embed) {
    lmHead = { location: embedFile, offset: embedOffset, length: embedLength, dims: [V, H] };
  } else {
    const [offset, length] = headData.append(read(names.lmHead));
    lmHead = { location: 'head.bin', offset, length, dims: [V, H] };
  }
  const headBytes = buildHeadGraph({ config, finalNorm: read(names.finalNorm), lmHead, data: headData, variant });
  headData.close();
  fs.writeFileSync(path.join(dir, 'head.onnx'), headBytes);

  const files: Record<string, CachedFileCheck> = {};
  for (const name of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, name);
    files[name] = { bytes: fs.statSync(file).size, sha256: hashFileSync(file) };
  }
  return {
    key,
    files,
    engineVersion: ENGINE_VERSION,
    numBlocks: config.numBlocks,
    hiddenSize: H,
    vocabSize: V,
    embedFile,
    blockFiles,
    headFile: 'head.onnx',
    weights: variant.weights ?? 'f32',
    ...(variant.kvCache === 'f16' ? { kvCache: 'f16' as const } : {}),
  };
}
