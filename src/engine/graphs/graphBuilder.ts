/**
 * A small builder for ONNX graphs on top of the `onnx-proto` message classes. Large weights go to
 * an external data file (F32, page-aligned so onnxruntime can map them) instead of the protobuf,
 * which keeps every .onnx file tiny and the weights out of JS memory once written.
 */
import * as fs from 'node:fs';
import { onnx } from 'onnx-proto';

export const FLOAT = onnx.TensorProto.DataType.FLOAT;
export const INT64 = onnx.TensorProto.DataType.INT64;
export const INT32 = onnx.TensorProto.DataType.INT32;
export const UINT8 = onnx.TensorProto.DataType.UINT8;
export const INT8 = onnx.TensorProto.DataType.INT8;
export const FLOAT16 = onnx.TensorProto.DataType.FLOAT16;

/** A dimension: a fixed size or a symbolic name ("batch", "seq"). */
export type Dim = number | string;

type AttrValue = number | number[] | string;
export type Attrs = Record<string, AttrValue | { f: number } | { i: number }>;

/** Appends F32 tensors to one external data file; records where each one lives. */
export class ExternalDataFile {
  private offset = 0;
  private readonly fd: number;

  constructor(readonly filePath: string, readonly locationName: string) {
    this.fd = fs.openSync(filePath, 'w');
  }

  /** Writes the tensor at the next 4 KiB boundary and returns its [offset, length] in bytes. */
  append(data: Float32Array | Uint8Array): [number, number] {
    const pad = (4096 - (this.offset % 4096)) % 4096;
    if (pad) {
      fs.writeSync(this.fd, Buffer.alloc(pad));
      this.offset += pad;
    }
    const start = this.offset;
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    let written = 0;
    while (written < bytes.length) written += fs.writeSync(this.fd, bytes, written, bytes.length - written);
    this.offset += bytes.length;
    return [start, bytes.length];
  }

  close(): void {
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
  }
}

/** A weight that already lives in some external data file (e.g. the tied embedding matrix). */
export interface ExternalTensorRef {
  location: string;
  offset: number;
  length: number;
  dims: number[];
}

function valueInfo(name: string, elemType: number, dims: readonly Dim[]): onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

function attribute(name: string, value: Attrs[string]): onnx.IAttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  if (typeof value === 'string') return { name, type: T.STRING, s: Buffer.from(value, 'utf8') };
  if (Array.isArray(value)) return { name, type: T.INTS, ints: value };
  if (typeof value === 'number') return { name, type: T.INT, i: value };
  if ('f' in value) return { name, type: T.FLOAT, f: value.f };
  return { name, type: T.INT, i: value.i };
}

export class GraphBuilder {
  private readonly nodes: onnx.INodeProto[] = [];
  private readonly initializers: onnx.ITensorProto[] = [];
  private readonly inputs: onnx.IValueInfoProto[] = [];
  private readonly outputs: onnx.IValueInfoProto[] = [];
  private counter = 0;
  private readonly constants = new Map<string, string>();
  private usesMicrosoftDomain = false;

  constructor(readonly name: string, private readonly data: ExternalDataFile | null) {}

  input(name: string, elemType: number, dims: readonly Dim[]): string {
    this.inputs.push(valueInfo(name, elemType, dims));
    return name;
  }

  output(name: string, elemType: number, dims: readonly Dim[]): void {
    this.outputs.push(valueInfo(name, elemType, dims));
  }

  /** A large F32 weight, written to the external data file. */
  weight(name: string, data: Float32Array, dims: readonly number[]): string {
    if (!this.data) throw new Error(`graph ${this.name} has no external data file for weight ${name}`);
    const [offset, length] = this.data.append(data);
    return this.externalWeight(name, { location: this.data.locationName, offset, length, dims: [...dims] });
  }

  /** A large tensor of another element type (quantized weights: UINT8), in the external data file. */
  typedWeight(name: string, dataType: number, data: Uint8Array, dims: readonly number[]): string {
    if (!this.data) throw new Error(`graph ${this.name} has no external data file for weight ${name}`);
    const [offset, length] = this.data.append(data);
    return this.externalWeight(name, { location: this.data.locationName, offset, length, dims: [...dims] }, dataType);
  }

  /** A weight stored in an external file written elsewhere (shared, e.g. a tied embedding). */
  externalWeight(name: string, ref: ExternalTensorRef, dataType: number = FLOAT): string {
    this.initializers.push({
      name,
      dataType,
      dims: ref.dims,
      dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
      externalData: [
        { key: 'location', value: ref.location },
        { key: 'offset', value: String(ref.offset) },
        { key: 'length', value: String(ref.length) },
      ],
    });
    return name;
  }

  /** A small constant stored inside the graph (shapes, axes, scalars). Deduplicated. */
  constInt64(values: readonly number[], dims: readonly number[] = [values.length]): string {
    return this.constant('i', values, dims, INT64);
  }

  constFloat(values: readonly number[], dims: readonly number[] = []): string {
    return this.constant('f', values, dims, FLOAT);
  }

  private constant(kind: string, values: readonly number[], dims: readonly number[], dataType: number): string {
    const key = `${kind}:${dims.join('x')}:${values.join(',')}`;
    const known = this.constants.get(key);
    if (known) return known;
    const name = `const_${this.constants.size}`;
    const tensor: onnx.ITensorProto = { name, dataType, dims: [...dims] };
    if (dataType === INT64) tensor.int64Data = [...values];
    else tensor.floatData = [...values];
    this.initializers.push(tensor);
    this.constants.set(key, name);
    return name;
  }

  /** Adds one node; returns its output names (fresh names unless given). */
  op(opType: string, inputs: readonly string[], attrs: Attrs = {}, outputs: number | readonly string[] = 1, domain = ''): string[] {
    const outNames = typeof outputs === 'number'
      ? Array.from({ length: outputs }, () => `${opType.toLowerCase()}_${this.counter++}`)
      : [...outputs];
    if (domain === 'com.microsoft') this.usesMicrosoftDomain = true;
    this.nodes.push({
      opType,
      domain,
      name: `${opType}_${this.counter++}`,
      input: [...inputs],
      output: outNames,
      attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    });
    return outNames;
  }

  /** One-output shorthand. */
  op1(opType: string, inputs: readonly string[], attrs: Attrs = {}, domain = ''): string {
    return this.op(opType, inputs, attrs, 1, domain)[0];
  }

  toBytes(): Uint8Array {
    const opsetImport: onnx.IOperatorSetIdProto[] = [{ domain: '', version: 17 }];
    if (this.usesMicrosoftDomain) opsetImport.push({ domain: 'com.microsoft', version: 1 });
    const model = onnx.ModelProto.create({
      irVersion: 8,
      producerName: 'reach-audit',
      opsetImport,
      graph: {
        name: this.name,
        node: this.nodes,
        initializer: this.initializers,
        input: this.inputs,
        output: this.outputs,
      },
    });
    return onnx.ModelProto.encode(model).finish();
  }
}
