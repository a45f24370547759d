/**
 * Reads and drops what is left of a request body before its refusal is sent. A server that
 * answers 413 with the body still arriving must close the connection, and a client still writing
 * then meets EPIPE or a reset instead of the answer (the race nginx's lingering close exists
 * for); read to the end, the refusal arrives whole and the connection stays usable. Bodies past
 * `limit` are not waited for: their refusal goes at once, and Node closes the connection.
 */
import type { IncomingMessage } from 'node:http';

function ignore(): void {
  // the bytes are dropped
}

/** Calls `then` once, with whether the body was read to its end (the connection may stay). */
export function afterBody(
  request: IncomingMessage,
  limit: number,
  then: (drained: boolean) => void,
): void {
  const declared = Number(request.headers['content-length'] ?? Number.NaN);
  if (request.complete || request.readableEnded || declared > limit) {
    then(request.complete);
    return;
  }
  let done = false;
  const finish = (): void => {
    if (!done) {
      done = true;
      request.off('data', ignore);
      then(request.complete);
    }
  };
  request.on('data', ignore);
  request.once('end', finish);
  // A caller that leaves gets its answer written to a closed socket, which Node drops.
  request.once('close', finish);
  request.resume();
}
