/**
 * A plain safetensors reader for the test reference (independent of src/engine): decodes
 * F32 / F16 / BF16 tensors into float64 arrays, with strict checks of the header.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bf16ToNumber, f16ToNumber } from './bf16';

export interface ReadTensor {
  dtype: string;
  shape: number[];
  data: Float64Array;
}

const SIZES: Record<string, number> = { F32: 4, F16: 2, BF16: 2 };

/** Reads every tensor of one safetensors file. */
export function readSafetensors(file: string): Map<string, ReadTensor> {
  const buf = fs.readFileSync(file);
  if (buf.length < 8) throw new Error(`${file}: shorter than the 8-byte header length`);
  const headerLen = Number(buf.readBigUInt64LE(0));
  if (8 + headerLen > buf.length) throw new Error(`${file}: header length ${headerLen} past end of file`);
  const header = JSON.parse(buf.subarray(8, 8 + headerLen).toString('utf8')) as Record<string, unknown>;
  const body = buf.subarray(8 + headerLen);
  const out = new Map<string, ReadTensor>();
  const ranges: [number, number, string][] = [];
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const e = entry as { dtype: string; shape: number[]; data_offsets: [number, number] };
    const size = SIZES[e.dtype];
    if (size === undefined) throw new Error(`${file}: ${name} has unsupported dtype ${e.dtype}`);
    const count = e.shape.reduce((a, b) => a * b, 1);
    const [begin, end] = e.data_offsets;
    if (end - begin !== count * size || begin < 0 || end > body.length) {
      throw new Error(`${file}: ${name} data_offsets [${begin}, ${end}] do not fit shape/dtype/body`);
    }
    ranges.push([begin, end, name]);
    const data = new Float64Array(count);
    for (let i = 0; i < count; i++) {
      const at = begin + i * size;
      data[i] =
        e.dtype === 'F32'
          ? body.readFloatLE(at)
          : e.dtype === 'BF16'
            ? bf16ToNumber(body.readUInt16LE(at))
            : f16ToNumber(body.readUInt16LE(at));
    }
    out.set(name, { dtype: e.dtype, shape: e.shape, data });
  }
  ranges.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < ranges.length; i++) {
    if (ranges[i][0] < ranges[i - 1][1]) throw new Error(`${file}: ${ranges[i][2]} overlaps ${ranges[i - 1][2]}`);
  }
  return out;
}

/** Reads all weights of a model folder: model.safetensors, or the shards named by the index. */
export function readModelWeights(dir: string): Map<string, ReadTensor> {
  const index = path.join(dir, 'model.safetensors.index.json');
  if (!fs.existsSync(index)) return readSafetensors(path.join(dir, 'model.safetensors'));
  const weightMap = (JSON.parse(fs.readFileSync(index, 'utf8')) as { weight_map: Record<string, string> }).weight_map;
  const all = new Map<string, ReadTensor>();
  for (const file of [...new Set(Object.values(weightMap))].sort()) {
    for (const [name, t] of readSafetensors(path.join(dir, file))) {
      if (weightMap[name] !== file) throw new Error(`${file}: ${name} not mapped to this shard in the index`);
      all.set(name, t);
    }
  }
  for (const name of Object.keys(weightMap)) {
    if (!all.has(name)) throw new Error(`index names ${name} but ${weightMap[name]} lacks it`);
  }
  return all;
}
