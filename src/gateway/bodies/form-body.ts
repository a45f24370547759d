/**
 * A `multipart/form-data` request body (docs/design.md D31 "Forms"), read from the request's own
 * events only as far as its `model` field (multipart-model.ts): what comes before that field is
 * held within FORM_MODEL_BOUND (a 413 naming the bound past it, so a client that puts a large file
 * first hears how to fix it, and no file is held for a form that names no model). The rest stays
 * in the request, paused, and is passed on as it arrives (relay/streamed-body.ts), so an upload
 * of any size is never held here; only an upstream node's relay reads it whole (`wholeForm`).
 */
import type { IncomingMessage } from 'node:http';

import { GatewayError } from '../../core/http/gateway-error.ts';
import type { StreamedBody } from '../relay/streamed-body.ts';
import { type FormScan, scanForm } from './multipart-model.ts';

/** How many bytes of a form may come before its `model` field ends. */
export const FORM_MODEL_BOUND = 1024 * 1024;

export interface FormRequest {
  readonly model: string;
  /** The bytes read: the whole body when the request ended within them. */
  readonly body: Buffer;
  /** The rest, when the request had not ended: `body` first, then the request itself. */
  readonly streamed?: StreamedBody;
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

/** The Content-Length the caller gave, when it is a plain whole number. */
function declaredLength(request: IncomingMessage): number | undefined {
  const value = request.headers['content-length'];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

export function readForm(request: IncomingMessage, boundary: string): Promise<FormRequest> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const detach = (): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', reject);
    };
    const stop = (error: GatewayError): void => {
      detach();
      reject(error);
    };
    const scan = (ended: boolean): FormScan =>
      scanForm(Buffer.concat(chunks, size), boundary, ended);
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      chunks.push(chunk);
      const found = scan(false);
      if (found.kind === 'model' && found.end <= FORM_MODEL_BOUND) {
        // Found: the rest waits in the request, paused, until it is sent on.
        detach();
        request.pause();
        const length = declaredLength(request);
        const first = Buffer.concat(chunks, size);
        resolve({
          model: found.model,
          body: first,
          streamed: { first, rest: request, ...(length === undefined ? {} : { length }) },
        });
      } else if (found.kind === 'missing') {
        stop(missing());
      } else if (size > FORM_MODEL_BOUND || found.kind === 'model') {
        stop(tooLate());
      }
    };
    const onEnd = (): void => {
      detach();
      const found = scan(true);
      if (found.kind === 'model' && found.end > FORM_MODEL_BOUND) {
        reject(tooLate());
        return;
      }
      if (found.kind !== 'model' || found.model === '') {
        reject(missing());
        return;
      }
      resolve({ model: found.model, body: Buffer.concat(chunks, size) });
    };
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', reject);
  });
}

/**
 * The whole form, for a relay that sends a body in one piece (an upstream node's): the rest read
 * now, up to `maxBytes` (413 past it).
 */
export function wholeForm(form: FormRequest, maxBytes: number): Promise<Buffer> {
  const streamed = form.streamed;
  if (streamed === undefined) {
    return Promise.resolve(form.body);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [streamed.first];
    let size = streamed.first.length;
    const { rest } = streamed;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        rest.off('data', onData);
        rest.off('end', onEnd);
        rest.pause();
        reject(new GatewayError(413, `the request body is larger than ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      rest.off('error', reject);
      resolve(Buffer.concat(chunks, size));
    };
    rest.on('data', onData);
    rest.once('end', onEnd);
    rest.once('error', reject);
    rest.resume();
  });
}
