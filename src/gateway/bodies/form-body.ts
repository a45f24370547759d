/**
 * A `multipart/form-data` request body (docs/design.md D31 "Forms"), read from the request's own
 * events: its `model` field is looked for as the bytes come (multipart-model.ts), and what comes
 * before that field is held within FORM_MODEL_BOUND (a 413 naming the bound past it, so a client
 * that puts a large file first hears how to fix it, and no file is held for a form that names no
 * model). The whole body is kept and passed on byte for byte, up to `maxBytes` (413 past it).
 */
import type { IncomingMessage } from 'node:http';

import { GatewayError } from '../../core/http/gateway-error.ts';
import { type FormScan, scanForm } from './multipart-model.ts';

/** How many bytes of a form may come before its `model` field ends. */
export const FORM_MODEL_BOUND = 1024 * 1024;

export interface FormRequest {
  readonly model: string;
  readonly body: Buffer;
}

function missing(): GatewayError {
  return new GatewayError(
    400,
    'the multipart/form-data request names no model: add a form field named "model"',
  );
}

function tooLate(): GatewayError {
  return new GatewayError(
    413,
    `the form's "model" field must end within its first ${FORM_MODEL_BOUND} bytes (1 MiB): send it before the file`,
  );
}

export function readForm(
  request: IncomingMessage,
  boundary: string,
  maxBytes: number,
): Promise<FormRequest> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let model: string | undefined;
    const stop = (error: GatewayError): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      reject(error);
    };
    const scan = (ended: boolean): FormScan =>
      scanForm(Buffer.concat(chunks, size), boundary, ended);
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        stop(new GatewayError(413, `the request body is larger than ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
      if (model !== undefined) {
        return;
      }
      const found = scan(false);
      if (found.kind === 'model' && found.end <= FORM_MODEL_BOUND) {
        model = found.model;
      } else if (found.kind === 'missing') {
        stop(missing());
      } else if (size > FORM_MODEL_BOUND || found.kind === 'model') {
        stop(tooLate());
      }
    };
    const onEnd = (): void => {
      request.off('error', reject);
      const found = model === undefined ? scan(true) : undefined;
      if (found?.kind === 'model' && found.end > FORM_MODEL_BOUND) {
        reject(tooLate());
        return;
      }
      const named = model ?? (found?.kind === 'model' ? found.model : undefined);
      if (named === undefined || named === '') {
        reject(missing());
        return;
      }
      resolve({ model: named, body: Buffer.concat(chunks, size) });
    };
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', reject);
  });
}
