/**
 * An error that is already an HTTP reply: a status and the message for `{"error": "..."}`
 * (spec §2.8). Handlers throw it; the control API's one error handler turns it into the reply.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
