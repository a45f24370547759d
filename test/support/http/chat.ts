/**
 * The one way an end-to-end test sends a chat completion: a POST to `<origin>/v1/chat/completions`
 * whose body is a short chat (one user message, four tokens) with the test's own fields over it,
 * or a body the test wrote itself, sent byte for byte. Each test keeps its own assertions on the
 * Response; only the request is shared.
 */

/**
 * A short chat completion's body, `model` first as clients write it; `fields` set or add others
 * (`model`, `stream`, `max_tokens`…).
 */
export function chatBody(fields: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const { model, ...rest } = fields;
  return {
    ...(model === undefined ? {} : { model }),
    messages: [{ role: 'user', content: 'hello' }],
    max_tokens: 4,
    ...rest,
  };
}

export interface ChatOptions {
  /** Sent beside `content-type: application/json`: the caller's `authorization`, say. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal | undefined;
}

/**
 * POSTs a chat completion to `origin` (a gateway, a daemon's engine, a simulated instance):
 * `body` is fields over chatBody's, or a string sent as it is.
 */
export function chat(
  origin: string,
  body: Readonly<Record<string, unknown>> | string = {},
  options: ChatOptions = {},
): Promise<Response> {
  return fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...options.headers, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(chatBody(body)),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}
