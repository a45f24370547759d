/**
 * What the prompt-cache policy (slot-cache.ts) asks of a running llama-server: who it is (`GET
 * /props`: model path, build, slots, context per slot, plus the model file's size and mtime read
 * here) and to save or restore one slot (`POST /slots/<id>?action=save|restore` with
 * `{"filename"}`, answering `n_saved`/`n_restored`, `n_written`/`n_read` and `timings`). Injected
 * into the supervisor so the policy has fast unit tests against a fake (docs/design.md D32).
 */
import { stat } from 'node:fs/promises';

import { request } from 'undici';

import { readKeyFile } from '../fs/read-key-file.ts';

/** What a slot file must have been saved by to be restored: any difference skips it. */
export interface SlotIdentity {
  readonly model: string;
  readonly modelBytes: number;
  readonly modelMtimeMs: number;
  readonly build: string;
  /** Context of one slot. */
  readonly context: number;
  readonly slots: number;
}

export interface SlotTransfer {
  readonly tokens: number;
  readonly bytes: number;
  readonly ms: number;
}

export interface SlotCacheClient {
  /** `loading` while the engine still loads its model (llama-server answers 503). */
  identity(signal: AbortSignal): Promise<SlotIdentity | 'loading'>;
  save(slot: number, filename: string, signal: AbortSignal): Promise<SlotTransfer>;
  restore(slot: number, filename: string, signal: AbortSignal): Promise<SlotTransfer>;
}

export type SlotCacheClientFactory = (
  baseUrl: string,
  keyFile: string | undefined,
) => SlotCacheClient;

interface EngineReply {
  readonly error?: { readonly message?: string };
  readonly n_saved?: number;
  readonly n_restored?: number;
  readonly n_written?: number;
  readonly n_read?: number;
  readonly timings?: { readonly save_ms?: number; readonly restore_ms?: number };
}

/** llama-server answers 503 to everything while it loads its model. */
class EngineLoading extends Error {}

async function call(
  url: string,
  keyFile: string | undefined,
  signal: AbortSignal,
  body?: unknown,
): Promise<unknown> {
  const key = await readKeyFile(keyFile);
  const reply = await request(url, {
    method: body === undefined ? 'GET' : 'POST',
    signal,
    headers: {
      'content-type': 'application/json',
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await reply.body.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (reply.statusCode === 503) {
    throw new EngineLoading('the engine is loading');
  }
  if (reply.statusCode !== 200) {
    const message = (parsed as EngineReply | undefined)?.error?.message;
    throw new Error(`the engine answered ${reply.statusCode}${message ? `: ${message}` : ''}`);
  }
  return parsed;
}

/** The real client: HTTP against the engine, presenting its key when it is gated. */
export const httpSlotCacheClient: SlotCacheClientFactory = (baseUrl, keyFile) => {
  const slot = async (
    id: number,
    action: 'save' | 'restore',
    filename: string,
    signal: AbortSignal,
  ): Promise<SlotTransfer> => {
    const url = `${baseUrl}/slots/${id}?action=${action}`;
    const reply = (await call(url, keyFile, signal, { filename })) as EngineReply;
    return action === 'save'
      ? { tokens: reply.n_saved ?? 0, bytes: reply.n_written ?? 0, ms: reply.timings?.save_ms ?? 0 }
      : {
          tokens: reply.n_restored ?? 0,
          bytes: reply.n_read ?? 0,
          ms: reply.timings?.restore_ms ?? 0,
        };
  };
  return {
    async identity(signal) {
      const answer = await call(`${baseUrl}/props`, keyFile, signal).catch((error: unknown) => {
        if (error instanceof EngineLoading) {
          return 'loading' as const;
        }
        throw error;
      });
      if (answer === 'loading') {
        return answer;
      }
      const props = answer as {
        model_path?: string;
        build_info?: string;
        total_slots?: number;
        default_generation_settings?: { n_ctx?: number };
      };
      const model = props.model_path ?? '';
      const file = await stat(model).catch(() => undefined);
      return {
        model,
        modelBytes: file?.size ?? 0,
        modelMtimeMs: Math.trunc(file?.mtimeMs ?? 0),
        build: props.build_info ?? '',
        context: props.default_generation_settings?.n_ctx ?? 0,
        slots: props.total_slots ?? 1,
      };
    },
    save: (id, filename, signal) => slot(id, 'save', filename, signal),
    restore: (id, filename, signal) => slot(id, 'restore', filename, signal),
  };
};
