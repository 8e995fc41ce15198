import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeRawSafetensors, writeSafetensors } from '../../support/safetensorsWriter';
import { readModelWeights, readSafetensors } from '../../support/safetensorsReader';
import { bf16Bits, bf16ToNumber, f16Bits, f16ToNumber } from '../../support/bf16';
import { SMALL_SPECS, buildModelTensors, writeRandomModel } from '../../support/modelFolder';

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ref-st-'));
}

test('safetensors header layout: u64 LE length, JSON padded with spaces to 8 bytes, metadata', () => {
  const file = path.join(tmp(), 'a.safetensors');
  const data = Float32Array.from([1.5, -2, 3.25, 0.1, 7, 8]);
  writeSafetensors(file, [
    { name: 'w', dtype: 'F32', shape: [2, 3], data },
    { name: 'b', dtype: 'BF16', shape: [3], data: data.subarray(0, 3) },
  ]);
  const buf = fs.readFileSync(file);
  const n = Number(buf.readBigUInt64LE(0));
  assert.equal(n % 8, 0);
  const text = buf.subarray(8, 8 + n).toString('utf8');
  assert.match(text, /^\{.*\} *$/);
  const header = JSON.parse(text);
  assert.deepEqual(header.__metadata__, { format: 'pt' });
  assert.deepEqual(header.w, { dtype: 'F32', shape: [2, 3], data_offsets: [0, 24] });
  assert.deepEqual(header.b, { dtype: 'BF16', shape: [3], data_offsets: [24, 30] });
  assert.equal(buf.length, 8 + n + 30);
  assert.equal(buf.readFloatLE(8 + n + 4), -2);
  assert.equal(buf.readUInt16LE(8 + n + 24 + 6 - 2), bf16Bits(3.25));
});

test('written tensors read back to the stored values for every dtype', () => {
  const dir = tmp();
  const data = Float32Array.from({ length: 50 }, (_, i) => Math.sin(i) * 3);
  for (const dtype of ['F32', 'F16', 'BF16'] as const) {
    const file = path.join(dir, `${dtype}.safetensors`);
    writeSafetensors(file, [{ name: 'x', dtype, shape: [5, 10], data }]);
    const t = readSafetensors(file).get('x')!;
    assert.deepEqual(t.shape, [5, 10]);
    for (let i = 0; i < data.length; i++) {
      const expected =
        dtype === 'F32' ? data[i] : dtype === 'BF16' ? bf16ToNumber(bf16Bits(data[i])) : f16ToNumber(f16Bits(data[i]));
      assert.equal(t.data[i], expected);
    }
  }
});

test('every SMALL_SPECS folder reads back the generated tensors (sharded included)', () => {
  for (const [key, spec] of Object.entries(SMALL_SPECS)) {
    const dir = path.join(tmp(), key);
    const written = writeRandomModel(dir, spec);
    if (spec.sharded) {
      assert.deepEqual(written.weightFiles, ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']);
      const index = JSON.parse(fs.readFileSync(path.join(dir, 'model.safetensors.index.json'), 'utf8'));
      assert.equal(typeof index.metadata.total_size, 'number');
    }
    const read = readModelWeights(dir);
    const expected = buildModelTensors(spec);
    assert.equal(read.size, expected.length, key);
    for (const t of expected) {
      const r = read.get(t.name)!;
      assert.ok(r, `${key}: ${t.name}`);
      assert.deepEqual(r.shape, t.shape);
      assert.equal(r.dtype, spec.dtype);
      const dec = (x: number) =>
        spec.dtype === 'F32' ? x : spec.dtype === 'BF16' ? bf16ToNumber(bf16Bits(x)) : f16ToNumber(f16Bits(x));
      for (let i = 0; i < t.data.length; i += 17) assert.equal(r.data[i], dec(t.data[i]));
    }
    assert.equal(read.has('lm_head.weight'), !spec.tieWordEmbeddings);
    const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
    assert.deepEqual(config.architectures, [spec.architecture]);
    assert.equal(config.num_hidden_layers, spec.numBlocks);
    if (spec.architecture === 'Qwen3ForCausalLM') assert.equal(config.head_dim, spec.headDim);
  }
});

test('same spec and seed gives identical weights; another seed differs', () => {
  const a = buildModelTensors(SMALL_SPECS.llama)[1].data;
  const b = buildModelTensors(SMALL_SPECS.llama)[1].data;
  const c = buildModelTensors({ ...SMALL_SPECS.llama, seed: 99 })[1].data;
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});

test('raw writer produces the corrupt variants the reader rejects', () => {
  const dir = tmp();
  const body = Buffer.alloc(16);
  const ok = '{"x":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}';
  writeRawSafetensors(path.join(dir, 'ok.safetensors'), ok, body);
  assert.equal(readSafetensors(path.join(dir, 'ok.safetensors')).get('x')!.data.length, 4);
  writeRawSafetensors(path.join(dir, 'len.safetensors'), ok, body, { headerLength: 1000n });
  assert.throws(() => readSafetensors(path.join(dir, 'len.safetensors')), /past end of file/);
  writeRawSafetensors(path.join(dir, 'oob.safetensors'), '{"x":{"dtype":"F32","shape":[8],"data_offsets":[0,32]}}', body);
  assert.throws(() => readSafetensors(path.join(dir, 'oob.safetensors')), /data_offsets/);
  writeRawSafetensors(
    path.join(dir, 'overlap.safetensors'),
    '{"x":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},"y":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}',
    body,
  );
  assert.throws(() => readSafetensors(path.join(dir, 'overlap.safetensors')), /overlaps/);
  writeRawSafetensors(path.join(dir, 'dtype.safetensors'), '{"x":{"dtype":"Q4","shape":[4],"data_offsets":[0,16]}}', body);
  assert.throws(() => readSafetensors(path.join(dir, 'dtype.safetensors')), /unsupported dtype/);
});
