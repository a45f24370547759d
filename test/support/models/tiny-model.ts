/**
 * A tiny llama-architecture model for the end-to-end tests: 2 blocks, embedding 64, feed-forward
 * 128, 4 heads, f32 weights from a fixed seed, and a byte-fallback SentencePiece vocabulary. It is
 * about half a megabyte, loads in llama-server in well under a second and answers completions
 * with gibberish, which is all the tests need: a real engine doing real work.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

import { encodeGguf, type GgufModel, type GgufTensor, type GgufValue } from './gguf-writer.ts';

export const TINY_MODEL = {
  blocks: 2,
  embedding: 64,
  feedForward: 128,
  heads: 4,
  kvHeads: 4,
  ropeDimensions: 16,
  contextLength: 2048,
  seed: 0x5eed,
} as const;

/** SentencePiece token types (llama.cpp `llama_token_type`). */
const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, byte: 6 } as const;

const WORDS = [
  '▁',
  '▁the',
  '▁a',
  '▁hello',
  '▁world',
  '▁svc',
  '▁model',
  '▁engine',
  'e',
  't',
  'a',
  'o',
];

/** mulberry32: a small, fast, seedable generator so every run writes the same bytes. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function vocabulary(): { tokens: string[]; scores: number[]; types: number[] } {
  const tokens = ['<unk>', '<s>', '</s>'];
  const types: number[] = [TOKEN_TYPE.unknown, TOKEN_TYPE.control, TOKEN_TYPE.control];
  for (let byte = 0; byte < 256; byte += 1) {
    tokens.push(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(TOKEN_TYPE.byte);
  }
  for (const word of WORDS) {
    tokens.push(word);
    types.push(TOKEN_TYPE.normal);
  }
  // Longer pieces score higher so the tokenizer prefers whole words over bytes.
  const scores = tokens.map((token, index) =>
    types[index] === TOKEN_TYPE.normal ? -1 / token.length : 0,
  );
  return { tokens, scores, types };
}

export interface TinyModelOptions {
  /**
   * The training context the GGUF declares (`llama.context_length`; llama-server caps its
   * context at it). Default 2048; a coding agent's first request (~12k tokens) needs 32768.
   */
  readonly contextLength?: number;
}

export function tinyModel(options: TinyModelOptions = {}): GgufModel {
  const { blocks, embedding, feedForward, heads, kvHeads, ropeDimensions, seed } = TINY_MODEL;
  const contextLength = options.contextLength ?? TINY_MODEL.contextLength;
  const vocab = vocabulary();
  const next = random(seed);
  const weights = (dims: number[], scale = 0.08): Float32Array =>
    Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, () => (next() * 2 - 1) * scale);
  const ones = (size: number): Float32Array => new Float32Array(size).fill(1);
  const kvWidth = (embedding / heads) * kvHeads;

  const tensors: GgufTensor[] = [
    {
      name: 'token_embd.weight',
      dims: [embedding, vocab.tokens.length],
      data: weights([embedding, vocab.tokens.length]),
    },
    { name: 'output_norm.weight', dims: [embedding], data: ones(embedding) },
    {
      name: 'output.weight',
      dims: [embedding, vocab.tokens.length],
      data: weights([embedding, vocab.tokens.length]),
    },
  ];
  for (let block = 0; block < blocks; block += 1) {
    const tensor = (name: string, dims: number[], data?: Float32Array): GgufTensor => ({
      name: `blk.${block}.${name}.weight`,
      dims,
      data: data ?? weights(dims),
    });
    tensors.push(
      tensor('attn_norm', [embedding], ones(embedding)),
      tensor('attn_q', [embedding, embedding]),
      tensor('attn_k', [embedding, kvWidth]),
      tensor('attn_v', [embedding, kvWidth]),
      tensor('attn_output', [embedding, embedding]),
      tensor('ffn_norm', [embedding], ones(embedding)),
      tensor('ffn_gate', [embedding, feedForward]),
      tensor('ffn_up', [embedding, feedForward]),
      tensor('ffn_down', [feedForward, embedding]),
    );
  }

  const u32 = (value: number): GgufValue => ({ type: 'u32', value });
  const metadata = new Map<string, GgufValue>([
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: 'svc-tiny-test' }],
    ['general.alignment', u32(32)],
    ['llama.context_length', u32(contextLength)],
    ['llama.embedding_length', u32(embedding)],
    ['llama.block_count', u32(blocks)],
    ['llama.feed_forward_length', u32(feedForward)],
    ['llama.attention.head_count', u32(heads)],
    ['llama.attention.head_count_kv', u32(kvHeads)],
    ['llama.rope.dimension_count', u32(ropeDimensions)],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-5 }],
    ['llama.vocab_size', u32(vocab.tokens.length)],
    ['tokenizer.ggml.model', { type: 'string', value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: 'string[]', value: vocab.tokens }],
    ['tokenizer.ggml.scores', { type: 'f32[]', value: vocab.scores }],
    ['tokenizer.ggml.token_type', { type: 'i32[]', value: vocab.types }],
    ['tokenizer.ggml.bos_token_id', u32(1)],
    ['tokenizer.ggml.eos_token_id', u32(2)],
    ['tokenizer.ggml.unknown_token_id', u32(0)],
  ]);
  return { metadata, tensors };
}

/** Writes the tiny model to `path` (creating its directory) and returns the path. */
export async function writeTinyModel(
  path: string,
  options: TinyModelOptions = {},
): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, encodeGguf(tinyModel(options)));
  return path;
}
