import { afterEach, beforeEach, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../src/common/errors';
import { openWeights, readSafetensorsHeader } from '../../../src/engine/checkpoint/safetensors';
import { bf16Bits, bf16ToNumber, f16Bits, f16ToNumber } from '../../support/bf16';
import { SMALL_SPECS, buildModelTensors, writeRandomModel, writeRawSafetensors, writeSafetensors } from '../../support/modelFolder';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-safetensors-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function values(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out[i] = (x / 2147483648 - 0.5) * 8;
  }
  return out;
}

/** What a stored dtype holds for a value (the support writer rounds to nearest even). */
function stored(dtype: 'F32' | 'F16' | 'BF16', data: Float32Array): Float32Array {
  if (dtype === 'F32') return data;
  return Float32Array.from(data, (v) => (dtype === 'F16' ? f16ToNumber(f16Bits(v)) : bf16ToNumber(bf16Bits(v))));
}

function expectInputError(fn: () => unknown, ...patterns: RegExp[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
    for (const p of patterns) assert.match(e.message, p);
    return true;
  });
}

/** A one-tensor header with the given fields. */
function header(entries: Record<string, unknown>): string {
  return JSON.stringify({ __metadata__: { format: 'pt' }, ...entries });
}

test('reads F32, F16 and BF16 tensors of one file back exactly, with their layout', () => {
  const a = values(6, 1);
  const b = values(12, 2);
  const c = values(5, 3);
  writeSafetensors(path.join(dir, 'model.safetensors'), [
    { name: 'a', dtype: 'F32', shape: [2, 3], data: a },
    { name: 'b', dtype: 'F16', shape: [3, 4], data: b },
    { name: 'c', dtype: 'BF16', shape: [5], data: c },
  ]);
  const store = openWeights(dir);
  try {
    assert.deepEqual([...store.tensors.keys()].sort(), ['a', 'b', 'c']);
    const info = store.tensors.get('b')!;
    assert.equal(info.dtype, 'F16');
    assert.deepEqual(info.shape, [3, 4]);
    assert.equal(info.byteLength, 24);
    assert.equal(info.file, path.join(dir, 'model.safetensors'));
    // The tensor's bytes sit at byteOffset in the file.
    const raw = fs.readFileSync(info.file).subarray(info.byteOffset, info.byteOffset + info.byteLength);
    assert.equal(raw.readUInt16LE(0), f16Bits(b[0]));
    assert.deepEqual(store.read('a'), stored('F32', a));
    assert.deepEqual(store.read('b'), stored('F16', b));
    assert.deepEqual(store.read('c'), stored('BF16', c));
  } finally {
    store.close();
  }
});

test('a tensor larger than the read chunk decodes correctly across chunk boundaries', () => {
  const n = 9 * 1024 * 1024 + 3; // 18 MiB of BF16: more than one 16 MiB read
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = ((i % 251) - 125) / 4; // at most 8 significant bits: exact in BF16
  writeSafetensors(path.join(dir, 'model.safetensors'), [{ name: 'big', dtype: 'BF16', shape: [n], data }]);
  const store = openWeights(dir);
  const read = store.read('big');
  store.close();
  assert.equal(read.length, n);
  for (const i of [0, 1, 8 * 1024 * 1024 - 1, 8 * 1024 * 1024, 8 * 1024 * 1024 + 1, n - 1]) assert.equal(read[i], data[i], `at ${i}`);
  assert.deepEqual(read, data);
});

test('reads a sharded model through model.safetensors.index.json', () => {
  const spec = SMALL_SPECS.mistral; // F16, two shards
  const written = writeRandomModel(dir, spec);
  assert.equal(written.weightFiles.length, 2);
  const expected = buildModelTensors(spec);
  const store = openWeights(dir);
  try {
    assert.equal(store.tensors.size, expected.length);
    const files = new Set([...store.tensors.values()].map((t) => path.basename(t.file)));
    assert.deepEqual([...files].sort(), written.weightFiles.slice().sort());
    for (const t of expected) assert.deepEqual(store.read(t.name), stored('F16', t.data), t.name);
  } finally {
    store.close();
  }
});

test('model.safetensors wins over an index when both exist (as in transformers)', () => {
  writeSafetensors(path.join(dir, 'model.safetensors'), [{ name: 'x', dtype: 'F32', shape: [1], data: new Float32Array([1]) }]);
  fs.writeFileSync(path.join(dir, 'model.safetensors.index.json'), JSON.stringify({ weight_map: { y: 'missing.safetensors' } }));
  const store = openWeights(dir);
  assert.deepEqual([...store.tensors.keys()], ['x']);
  store.close();
});

test('contentHash: sha256 hex, independent of the folder path, changed by one byte, computed once', () => {
  writeRandomModel(dir, SMALL_SPECS.qwen2);
  const store = openWeights(dir);
  const hash = store.contentHash();
  assert.match(hash, /^[0-9a-f]{64}$/);
  assert.equal(store.contentHash(), hash);

  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-audit-safetensors-copy-'));
  try {
    fs.copyFileSync(path.join(dir, 'model.safetensors'), path.join(copy, 'model.safetensors'));
    const other = openWeights(copy);
    assert.equal(other.contentHash(), hash);
    other.close();
    // Flip one byte in the last tensor's data.
    const file = path.join(copy, 'model.safetensors');
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 1] ^= 1;
    fs.writeFileSync(file, bytes);
    const changed = openWeights(copy);
    assert.notEqual(changed.contentHash(), hash);
    changed.close();
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
  // Cached: returned without touching the files again.
  store.close();
  assert.equal(store.contentHash(), hash);
});

test('contentHash covers every shard of a sharded model', () => {
  const written = writeRandomModel(dir, SMALL_SPECS.mistral);
  const store = openWeights(dir);
  const hash = store.contentHash();
  store.close();
  // Independent computation of the documented definition: per file (sorted): name NUL, size u64le, bytes.
  const h = createHash('sha256');
  for (const name of written.weightFiles.slice().sort()) {
    const bytes = fs.readFileSync(path.join(dir, name));
    const size = Buffer.alloc(8);
    size.writeBigUInt64LE(BigInt(bytes.length));
    h.update(name + '\0');
    h.update(size);
    h.update(bytes);
  }
  assert.equal(hash, h.digest('hex'));
});

// ---- Bad input: each gets an InputError naming the file and what was expected.

test('bad input: header length past the end of the file', () => {
  const file = path.join(dir, 'model.safetensors');
  writeRawSafetensors(file, header({}), Buffer.alloc(0), { headerLength: 1000n });
  expectInputError(() => openWeights(dir), /model\.safetensors/, /header length 1000 is past the end of the file/);
});

test('bad input: file too short to hold the header length', () => {
  fs.writeFileSync(path.join(dir, 'model.safetensors'), Buffer.from([1, 2, 3]));
  expectInputError(() => openWeights(dir), /model\.safetensors/, /3 bytes, too short/);
});

test('bad input: header is not JSON', () => {
  writeRawSafetensors(path.join(dir, 'model.safetensors'), '{"a": {"dtype": "F32",', Buffer.alloc(0));
  expectInputError(() => openWeights(dir), /model\.safetensors/, /header is not valid JSON/);
});

test('bad input: header is JSON but not an object', () => {
  writeRawSafetensors(path.join(dir, 'model.safetensors'), '[1, 2, 3]', Buffer.alloc(0));
  expectInputError(() => openWeights(dir), /model\.safetensors/, /header is not a JSON object/);
});

test('bad input: data offsets out of bounds', () => {
  writeRawSafetensors(
    path.join(dir, 'model.safetensors'),
    header({ w: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } }),
    Buffer.alloc(8),
  );
  expectInputError(() => openWeights(dir), /model\.safetensors/, /tensor "w"/, /\[0, 16\] are out of bounds/, /<= 8/);
});

test('bad input: begin after end', () => {
  writeRawSafetensors(
    path.join(dir, 'model.safetensors'),
    header({ w: { dtype: 'F32', shape: [0], data_offsets: [8, 4] } }),
    Buffer.alloc(8),
  );
  expectInputError(() => openWeights(dir), /tensor "w"/, /out of bounds/);
});

test('bad input: overlapping tensors', () => {
  writeRawSafetensors(
    path.join(dir, 'model.safetensors'),
    header({
      a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] },
      b: { dtype: 'F32', shape: [2], data_offsets: [4, 12] },
    }),
    Buffer.alloc(12),
  );
  expectInputError(() => openWeights(dir), /model\.safetensors/, /"a" \[0, 8\] and "b" \[4, 12\] overlap/);
});

test('bad input: offsets not matching dtype × shape', () => {
  writeRawSafetensors(
    path.join(dir, 'model.safetensors'),
    header({ w: { dtype: 'BF16', shape: [2, 3], data_offsets: [0, 8] } }),
    Buffer.alloc(16),
  );
  expectInputError(() => openWeights(dir), /tensor "w"/, /hold 8 bytes, but dtype BF16 with shape \[2, 3\] needs 12 bytes/);
});

test('bad input: unknown dtype names the supported ones', () => {
  writeRawSafetensors(
    path.join(dir, 'model.safetensors'),
    header({ w: { dtype: 'I64', shape: [1], data_offsets: [0, 8] } }),
    Buffer.alloc(8),
  );
  expectInputError(() => openWeights(dir), /model\.safetensors/, /dtype I64 is not supported/, /F32, F16, BF16/);
});

test('bad input: malformed shape', () => {
  writeRawSafetensors(
    path.join(dir, 'model.safetensors'),
    header({ w: { dtype: 'F32', shape: [2, -1], data_offsets: [0, 8] } }),
    Buffer.alloc(8),
  );
  expectInputError(() => openWeights(dir), /tensor "w"/, /shape \[2,-1\] is not a list of non-negative integers/);
});

test('bad input: shard named in the index is missing', () => {
  writeRandomModel(dir, SMALL_SPECS.mistral);
  fs.rmSync(path.join(dir, 'model-00002-of-00002.safetensors'));
  expectInputError(
    () => openWeights(dir),
    /model\.safetensors\.index\.json/,
    /names shard model-00002-of-00002\.safetensors/,
    /does not exist/,
  );
});

test('bad input: index is not JSON', () => {
  fs.writeFileSync(path.join(dir, 'model.safetensors.index.json'), '{"weight_map": ');
  expectInputError(() => openWeights(dir), /model\.safetensors\.index\.json/, /not valid JSON/);
});

test('bad input: index without weight_map', () => {
  fs.writeFileSync(path.join(dir, 'model.safetensors.index.json'), '{"metadata": {}}');
  expectInputError(() => openWeights(dir), /model\.safetensors\.index\.json/, /weight_map/);
});

test('bad input: index places a tensor in a shard that lacks it', () => {
  writeSafetensors(path.join(dir, 'part.safetensors'), [{ name: 'x', dtype: 'F32', shape: [1], data: new Float32Array([1]) }]);
  fs.writeFileSync(path.join(dir, 'model.safetensors.index.json'), JSON.stringify({ weight_map: { x: 'part.safetensors', y: 'part.safetensors' } }));
  expectInputError(() => openWeights(dir), /weight_map puts tensor "y" in part\.safetensors, but that file has no such tensor/);
});

test('bad input: index shard path leaving the model folder', () => {
  fs.writeFileSync(path.join(dir, 'model.safetensors.index.json'), JSON.stringify({ weight_map: { x: '../elsewhere.safetensors' } }));
  expectInputError(() => openWeights(dir), /model\.safetensors\.index\.json/, /inside the model folder/);
});

test('bad input: no weight files at all', () => {
  expectInputError(() => openWeights(dir), /expected model\.safetensors or model\.safetensors\.index\.json/);
  fs.writeFileSync(path.join(dir, 'pytorch_model.bin'), 'x');
  expectInputError(() => openWeights(dir), /only PyTorch \.bin weights/);
});

test('bad input: a file truncated after validation reports the file, not a crash', () => {
  const file = path.join(dir, 'model.safetensors');
  writeSafetensors(file, [{ name: 'w', dtype: 'F32', shape: [64], data: values(64, 5) }]);
  const store = openWeights(dir);
  fs.truncateSync(file, fs.statSync(file).size - 10);
  expectInputError(() => store.read('w'), /model\.safetensors/, /file ended/);
  store.close();
});

test('readSafetensorsHeader ignores __metadata__ and accepts empty tensors', () => {
  const file = path.join(dir, 'x.safetensors');
  writeRawSafetensors(
    file,
    header({
      e: { dtype: 'F32', shape: [0, 3], data_offsets: [0, 0] },
      w: { dtype: 'F16', shape: [2], data_offsets: [0, 4] },
    }),
    Buffer.alloc(4),
  );
  const tensors = readSafetensorsHeader(file);
  assert.deepEqual(tensors.map((t) => t.name).sort(), ['e', 'w']);
});
