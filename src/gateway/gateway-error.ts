/**
 * A gateway refusal: an HTTP status and a message that names the node (spec §4.2, §7), sent
 * OpenAI-shaped so clients built for OpenAI show it: {"error": {"message", "type"}}.
 */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

export function errorBody(message: string): string {
  return JSON.stringify({ error: { message, type: 'gateway_error' } });
}
