/**
 * A request body changed on its way to a node (docs/design.md D31: an alias's or variant's
 * `model`, a node's `params`, a variant's `set` and `strip`): parsed and written again only for
 * the requests whose name needs it; every other body passes byte for byte (the hot path). A body
 * that is not a JSON object is returned as it came: the engine refuses it as it did before.
 */

/** What to change in a body's top-level keys: strip first, then set, then `model` last. */
export interface BodyChange {
  readonly model?: string;
  readonly set?: Readonly<Record<string, unknown>>;
  readonly strip?: readonly string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function rewriteBody(body: Buffer, change: BodyChange): Buffer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return body;
  }
  if (!isObject(parsed)) {
    return body;
  }
  for (const key of change.strip ?? []) {
    Reflect.deleteProperty(parsed, key);
  }
  if (change.set !== undefined) {
    for (const [key, value] of Object.entries(change.set)) {
      // A key named __proto__ would set the object's prototype, not a key the engine reads.
      Object.defineProperty(parsed, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  if (change.model !== undefined) {
    parsed['model'] = change.model;
  }
  return Buffer.from(JSON.stringify(parsed), 'utf8');
}
