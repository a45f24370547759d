/**
 * Reads a server-sent-events reply event by event as the bytes arrive, so a test can prove a
 * stream really streams (several chunks, in order) instead of arriving as one buffered body.
 */

export interface SseEvent {
  readonly data: string;
  /** Milliseconds since the reader started when this event's last byte arrived. */
  readonly at: number;
}

export async function readSse(
  body: ReadableStream<Uint8Array>,
): Promise<{ events: SseEvent[]; reads: number }> {
  const started = performance.now();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  let buffer = '';
  let reads = 0;
  for await (const chunk of body) {
    reads += 1;
    buffer += decoder.decode(chunk, { stream: true });
    let boundary = buffer.search(/\r?\n\r?\n/);
    while (boundary >= 0) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary).replace(/^\r?\n\r?\n/, '');
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data !== '') {
        events.push({ data, at: performance.now() - started });
      }
      boundary = buffer.search(/\r?\n\r?\n/);
    }
  }
  return { events, reads };
}
