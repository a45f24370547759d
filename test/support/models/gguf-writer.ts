/**
 * A minimal GGUF (version 3) writer: enough of the format to describe a model llama.cpp will
 * load. Pure: a description in, the file's bytes out. Used by tiny-model.ts so the end-to-end
 * tests run a real engine on a model the project makes itself instead of downloading one.
 *
 * Layout: header (magic, version, tensor count, metadata count), metadata key/values, tensor
 * infos (name, dims, type, offset), padding to the alignment, then each tensor's data aligned.
 */

export type GgufValue =
  | { type: 'u32'; value: number }
  | { type: 'i32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'string[]'; value: readonly string[] }
  | { type: 'f32[]'; value: readonly number[] }
  | { type: 'i32[]'; value: readonly number[] };

export interface GgufTensor {
  readonly name: string;
  /** ggml order: dims[0] is the innermost (row length). */
  readonly dims: readonly number[];
  readonly data: Float32Array;
}

export interface GgufModel {
  readonly metadata: ReadonlyMap<string, GgufValue>;
  readonly tensors: readonly GgufTensor[];
}

const ALIGNMENT = 32;
const GGML_TYPE_F32 = 0;
const VALUE_TYPE = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 } as const;

/** Grows a byte buffer as values are appended (little-endian throughout, as GGUF requires). */
class ByteSink {
  private buffer = Buffer.alloc(1 << 16);
  length = 0;

  private reserve(bytes: number): void {
    if (this.length + bytes > this.buffer.length) {
      const next = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + bytes));
      this.buffer.copy(next, 0, 0, this.length);
      this.buffer = next;
    }
  }

  u32(value: number): void {
    this.reserve(4);
    this.length = this.buffer.writeUInt32LE(value, this.length);
  }

  i32(value: number): void {
    this.reserve(4);
    this.length = this.buffer.writeInt32LE(value, this.length);
  }

  u64(value: number): void {
    this.reserve(8);
    this.length = this.buffer.writeBigUInt64LE(BigInt(value), this.length);
  }

  f32(value: number): void {
    this.reserve(4);
    this.length = this.buffer.writeFloatLE(value, this.length);
  }

  u8(value: number): void {
    this.reserve(1);
    this.length = this.buffer.writeUInt8(value, this.length);
  }

  string(value: string): void {
    const bytes = Buffer.from(value, 'utf8');
    this.u64(bytes.length);
    this.bytes(bytes);
  }

  bytes(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  padTo(alignment: number): void {
    while (this.length % alignment !== 0) {
      this.u8(0);
    }
  }

  toBuffer(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

/** An array value: the array tag, the element type, the count, then each element. */
function writeArray<T>(
  sink: ByteSink,
  elementType: number,
  items: readonly T[],
  write: (item: T) => void,
): void {
  sink.u32(VALUE_TYPE.array);
  sink.u32(elementType);
  sink.u64(items.length);
  items.forEach(write);
}

function writeValue(sink: ByteSink, value: GgufValue): void {
  switch (value.type) {
    case 'u32':
      sink.u32(VALUE_TYPE.u32);
      sink.u32(value.value);
      return;
    case 'i32':
      sink.u32(VALUE_TYPE.i32);
      sink.i32(value.value);
      return;
    case 'f32':
      sink.u32(VALUE_TYPE.f32);
      sink.f32(value.value);
      return;
    case 'bool':
      sink.u32(VALUE_TYPE.bool);
      sink.u8(value.value ? 1 : 0);
      return;
    case 'string':
      sink.u32(VALUE_TYPE.string);
      sink.string(value.value);
      return;
    case 'string[]':
      writeArray(sink, VALUE_TYPE.string, value.value, (item) => {
        sink.string(item);
      });
      return;
    case 'f32[]':
      writeArray(sink, VALUE_TYPE.f32, value.value, (item) => {
        sink.f32(item);
      });
      return;
    case 'i32[]':
      writeArray(sink, VALUE_TYPE.i32, value.value, (item) => {
        sink.i32(item);
      });
      return;
  }
}

export function encodeGguf(model: GgufModel): Buffer {
  const sink = new ByteSink();
  sink.bytes(Buffer.from('GGUF', 'ascii'));
  sink.u32(3);
  sink.u64(model.tensors.length);
  sink.u64(model.metadata.size);
  for (const [key, value] of model.metadata) {
    sink.string(key);
    writeValue(sink, value);
  }

  let offset = 0;
  for (const tensor of model.tensors) {
    const elements = tensor.dims.reduce((product, dim) => product * dim, 1);
    if (elements !== tensor.data.length) {
      throw new Error(
        `tensor ${tensor.name}: dims hold ${elements} values, data has ${tensor.data.length}`,
      );
    }
    sink.string(tensor.name);
    sink.u32(tensor.dims.length);
    tensor.dims.forEach((dim) => {
      sink.u64(dim);
    });
    sink.u32(GGML_TYPE_F32);
    sink.u64(offset);
    offset += alignUp(tensor.data.byteLength, ALIGNMENT);
  }

  sink.padTo(ALIGNMENT);
  for (const tensor of model.tensors) {
    sink.bytes(new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    sink.padTo(ALIGNMENT);
  }
  return sink.toBuffer();
}

function alignUp(value: number, alignment: number): number {
  return Math.ceil(value / alignment) * alignment;
}
