/**
 * A fake OpenAI-compatible server standing in for a hosted API (docs/design.md D30), for the faults
 * a real engine cannot show on cue: it records every request (its path, the Authorization it got,
 * the body's model) and answers as the test sets it: a JSON reply, a status with a body, a stream
 * of SSE chunks, a stream cut after its first chunks, or a hang. Listens on 127.0.0.1, port 0;
 * over TLS when given a key and certificate (an `https` upstream).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface SeenRequest {
  readonly path: string;
  readonly authorization?: string;
  readonly model?: unknown;
  readonly body: string;
}

export type FakeAnswer =
  | { readonly kind: 'json'; readonly status?: number; readonly body?: unknown }
  | { readonly kind: 'stream'; readonly chunks: readonly string[]; readonly cutAfter?: number }
  | { readonly kind: 'hang' };

export interface FakeOpenai {
  /** `http://127.0.0.1:<port>/v1` (`https` with TLS). */
  readonly url: string;
  readonly seen: SeenRequest[];
  answer: FakeAnswer;
  close(): Promise<void>;
}

function writeStream(response: ServerResponse, answer: FakeAnswer & { kind: 'stream' }): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const kept = answer.chunks.slice(0, answer.cutAfter ?? answer.chunks.length);
  const text = kept.map((chunk) => `data: ${chunk}\n\n`).join('');
  if (answer.cutAfter === undefined) {
    response.end(`${text}data: [DONE]\n\n`);
    return;
  }
  // Cut once what was sent is in the socket: the reader gets those bytes, then the stream ends
  // without its closing chunk.
  response.write(text, () => {
    response.socket?.destroy();
  });
}

/** PEM key and certificate for an `https` fake. */
export interface FakeTls {
  readonly key: string;
  readonly cert: string;
}

/**
 * A self-signed certificate for 127.0.0.1, made in `dir` with the machine's openssl; `certPath`
 * is what NODE_EXTRA_CA_CERTS names to trust it.
 */
export async function selfSignedTls(dir: string): Promise<FakeTls & { readonly certPath: string }> {
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  await promisify(execFile)('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
    ...['-keyout', key, '-out', cert, '-subj', '/CN=127.0.0.1'],
    ...['-addext', 'subjectAltName=IP:127.0.0.1'],
  ]);
  return {
    key: await readFile(key, 'utf8'),
    cert: await readFile(cert, 'utf8'),
    certPath: cert,
  };
}

export async function fakeOpenai(tls?: FakeTls): Promise<FakeOpenai> {
  const seen: SeenRequest[] = [];
  const fake = { answer: { kind: 'json' } as FakeAnswer };
  const handler: RequestListener = (request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const body = Buffer.concat(parts).toString('utf8');
      let model: unknown;
      try {
        model = (JSON.parse(body) as { model?: unknown }).model;
      } catch {
        model = undefined;
      }
      seen.push({
        path: request.url ?? '',
        ...(request.headers.authorization === undefined
          ? {}
          : { authorization: request.headers.authorization }),
        ...(model === undefined ? {} : { model }),
        body,
      });
      const answer = fake.answer;
      if (answer.kind === 'hang') {
        return;
      }
      if (answer.kind === 'stream') {
        writeStream(response, answer);
        return;
      }
      const reply = answer.body ?? {
        object: 'chat.completion',
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'hosted' } }],
      };
      response
        .writeHead(answer.status ?? 200, { 'content-type': 'application/json' })
        .end(JSON.stringify(reply));
    });
  };
  const server: Server = tls === undefined ? createServer(handler) : createTlsServer(tls, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}/v1`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
