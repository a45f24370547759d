/**
 * A multipart form as a real client writes it (undici's FormData, what Node's fetch and the OpenAI
 * SDK send): its exact bytes and Content-Type, so a test can send them and compare what arrived.
 */
import { createHash } from 'node:crypto';

export interface EncodedForm {
  readonly body: Buffer;
  readonly type: string;
}

/** `fields` in order; a Blob becomes a file part named `speech.wav`. */
export async function encodeForm(
  fields: readonly (readonly [string, string | Blob])[],
): Promise<EncodedForm> {
  const data = new FormData();
  for (const [name, value] of fields) {
    if (typeof value === 'string') {
      data.append(name, value);
    } else {
      data.append(name, value, 'speech.wav');
    }
  }
  const encoded = new Response(data);
  const body = Buffer.from(await encoded.arrayBuffer());
  return { body, type: encoded.headers.get('content-type') ?? '' };
}

/** What test/fixtures/command-server.mjs answers for a form that arrived byte for byte. */
export function arrivedIntact(form: EncodedForm, name: string): Record<string, unknown> {
  return {
    text: `served by ${name}`,
    bytes: form.body.length,
    sha256: createHash('sha256').update(form.body).digest('hex'),
    contentType: form.type,
  };
}

/** POSTs an encoded form to the gateway's `/v1/audio/<path>`, as an OpenAI client would. */
export function sendForm(
  url: string,
  headers: Readonly<Record<string, string>>,
  form: EncodedForm,
  path = 'transcriptions',
): Promise<Response> {
  return fetch(`${url}/v1/audio/${path}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': form.type },
    body: form.body,
  });
}
