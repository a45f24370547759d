import { describe, expect, it } from 'vitest';

import { encodeGguf } from './gguf-writer.ts';
import { TINY_MODEL, tinyModel } from './tiny-model.ts';

/** Reads back just enough of a GGUF file to check the writer: header, keys, tensor infos. */
function readGguf(bytes: Buffer): {
  version: number;
  keys: string[];
  tensors: { name: string; dims: number[]; type: number; offset: number }[];
  dataStart: number;
} {
  let at = 0;
  const u32 = (): number => {
    const value = bytes.readUInt32LE(at);
    at += 4;
    return value;
  };
  const u64 = (): number => {
    const value = Number(bytes.readBigUInt64LE(at));
    at += 8;
    return value;
  };
  const str = (): string => {
    const length = u64();
    const value = bytes.toString('utf8', at, at + length);
    at += length;
    return value;
  };
  const sizes: Record<number, number> = { 4: 4, 5: 4, 6: 4, 7: 1 };
  const skipValue = (type: number): void => {
    if (type === 8) {
      str();
    } else if (type === 9) {
      const itemType = u32();
      const count = u64();
      for (let index = 0; index < count; index += 1) {
        skipValue(itemType);
      }
    } else {
      at += sizes[type] ?? Number.NaN;
    }
  };

  expect(bytes.toString('ascii', 0, 4)).toBe('GGUF');
  at = 4;
  const version = u32();
  const tensorCount = u64();
  const keyCount = u64();
  const keys: string[] = [];
  for (let index = 0; index < keyCount; index += 1) {
    keys.push(str());
    skipValue(u32());
  }
  const tensors = [];
  for (let index = 0; index < tensorCount; index += 1) {
    const name = str();
    const dims = Array.from({ length: u32() }, u64);
    tensors.push({ name, dims, type: u32(), offset: u64() });
  }
  return { version, keys, tensors, dataStart: Math.ceil(at / 32) * 32 };
}

describe('GGUF writer', () => {
  const bytes = encodeGguf(tinyModel());
  const file = readGguf(bytes);

  it('writes a version 3 file with the llama metadata llama.cpp needs', () => {
    expect(file.version).toBe(3);
    expect(file.keys).toEqual(
      expect.arrayContaining([
        'general.architecture',
        'llama.context_length',
        'llama.embedding_length',
        'llama.block_count',
        'llama.feed_forward_length',
        'llama.attention.head_count',
        'llama.attention.head_count_kv',
        'llama.rope.dimension_count',
        'llama.attention.layer_norm_rms_epsilon',
        'tokenizer.ggml.model',
        'tokenizer.ggml.tokens',
        'tokenizer.ggml.scores',
        'tokenizer.ggml.token_type',
        'tokenizer.ggml.bos_token_id',
        'tokenizer.ggml.eos_token_id',
        'tokenizer.ggml.unknown_token_id',
      ]),
    );
  });

  it('lists every tensor of the architecture, f32, at 32-byte aligned offsets', () => {
    const names = file.tensors.map((tensor) => tensor.name);
    expect(names.slice(0, 3)).toEqual(['token_embd.weight', 'output_norm.weight', 'output.weight']);
    for (let block = 0; block < TINY_MODEL.blocks; block += 1) {
      for (const part of [
        'attn_norm',
        'attn_q',
        'attn_k',
        'attn_v',
        'attn_output',
        'ffn_norm',
        'ffn_gate',
        'ffn_up',
        'ffn_down',
      ]) {
        expect(names).toContain(`blk.${block}.${part}.weight`);
      }
    }
    expect(file.tensors.every((tensor) => tensor.type === 0 && tensor.offset % 32 === 0)).toBe(
      true,
    );
  });

  it('sizes the file to hold every tensor after the aligned header', () => {
    const last = file.tensors.at(-1);
    const lastBytes = (last?.dims ?? []).reduce((a, b) => a * b, 4);
    expect(bytes.length).toBeGreaterThanOrEqual(file.dataStart + (last?.offset ?? 0) + lastBytes);
    expect(bytes.length % 32).toBe(0);
  });

  it('declares context_length 2048 by default and the given one when asked', () => {
    expect(tinyModel().metadata.get('llama.context_length')).toEqual({ type: 'u32', value: 2048 });
    expect(tinyModel({ contextLength: 32768 }).metadata.get('llama.context_length')).toEqual({
      type: 'u32',
      value: 32768,
    });
  });

  it('is deterministic: the fixed seed gives the same bytes every time', () => {
    expect(encodeGguf(tinyModel()).equals(bytes)).toBe(true);
  });

  it('refuses a tensor whose data does not match its dims', () => {
    expect(() =>
      encodeGguf({
        metadata: new Map(),
        tensors: [{ name: 'bad', dims: [2, 2], data: new Float32Array(3) }],
      }),
    ).toThrow('tensor bad: dims hold 4 values, data has 3');
  });
});
