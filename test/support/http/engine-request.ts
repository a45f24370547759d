/**
 * The engine request a relay unit test sends through a scripted dispatcher (the gateway's relay,
 * src/gateway/relay): a chat completion to a loopback engine that answers nothing of its own, with
 * no time limits, so the test's script alone says what the engine does.
 */
export const ENGINE_REQUEST = {
  origin: 'http://127.0.0.1:1',
  path: '/v1/chat/completions',
  method: 'POST',
  headers: [],
  body: '{}',
  headersTimeout: 0,
  bodyTimeout: 0,
} as const;
