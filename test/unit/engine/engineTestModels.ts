/**
 * Shared fixtures of the engine's numerics / generation tests: random model folders written once
 * per process into a temp folder, loaded with a private graph cache and one thread.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after } from 'node:test';
import { type RandomModelSpec, SMALL_SPECS, type WrittenModel, writeRandomModel } from '../../support/modelFolder';
import { ReferenceModel } from '../../support/referenceTransformer';
import { type Model, loadModel } from '../../../src/engine';
import type { GraphVariant } from '../../../src/engine/graphs/blockGraph';

export const TOLERANCE = 1e-4;

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-engine-test-'));
export const cacheDir = path.join(root, 'cache');
after(() => fs.rmSync(root, { recursive: true, force: true }));

export interface Fixture {
  name: string;
  written: WrittenModel;
  model: Model;
  ref: ReferenceModel;
}

const loaded: Model[] = [];
after(async () => { for (const m of loaded) await m.dispose(); });

export function specVariants(): { name: string; spec: RandomModelSpec }[] {
  const out: { name: string; spec: RandomModelSpec }[] = [];
  for (const [name, spec] of Object.entries(SMALL_SPECS)) {
    for (const dtype of ['F32', 'BF16'] as const) out.push({ name: `${name}-${dtype}`, spec: { ...spec, dtype } });
  }
  return out;
}

export async function fixture(name: string, spec: RandomModelSpec, variant?: GraphVariant): Promise<Fixture> {
  const dir = path.join(root, 'models', name);
  const written = writeRandomModel(dir, spec);
  const model = await loadModel(dir, { cacheDir, threads: 1, variant });
  loaded.push(model);
  return { name, written, model, ref: ReferenceModel.load(dir) };
}

/** Deterministic token ids below `vocab` (avoids the special tokens at the end of the vocabulary). */
export function promptIds(n: number, salt: number, vocab: number): number[] {
  return Array.from({ length: n }, (_, i) => (i * 37 + salt * 101 + 3) % (vocab - 8));
}

export { root as testRoot };
