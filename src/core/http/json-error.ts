/**
 * Where a JSON body stopped parsing, without the text around it: Node's JSON.parse message quotes
 * the source near the error, which may be part of a key or token (spec §2.3, §5 rule 4).
 */
export function jsonErrorPosition(error: unknown): string {
  const position = /position (\d+)/.exec((error as Error).message)?.[1];
  return position === undefined ? '' : ` at position ${position}`;
}
