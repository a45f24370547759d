/**
 * The fields every node kind may carry (docs/fleet-file.md, "Nodes"), pure: the engine override and
 * the tags, each read from a node's YAML mapping with problems naming the node.
 */

export interface EngineOverride {
  readonly host?: string;
  readonly port?: number;
  readonly path?: string;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function engineOverride(
  raw: Record<string, unknown>,
  name: string,
  problem: (message: string) => void,
): EngineOverride | undefined {
  if (raw['engine'] === undefined) {
    return undefined;
  }
  const override = raw['engine'];
  if (!isRecord(override)) {
    problem(`node "${name}": engine must be a mapping of host, port and path`);
    return undefined;
  }
  const enginePort = override['port'];
  if (
    enginePort !== undefined &&
    (typeof enginePort !== 'number' || !Number.isInteger(enginePort))
  ) {
    problem(`node "${name}": engine.port must be a whole number`);
  }
  return {
    ...(typeof override['host'] === 'string' ? { host: override['host'] } : {}),
    ...(typeof enginePort === 'number' ? { port: enginePort } : {}),
    ...(typeof override['path'] === 'string' ? { path: override['path'] } : {}),
  };
}

export function tagsOf(
  raw: Record<string, unknown>,
  name: string,
  problem: (message: string) => void,
): Record<string, string> | undefined {
  if (raw['tags'] === undefined) {
    return undefined;
  }
  if (!isRecord(raw['tags'])) {
    problem(`node "${name}": tags must map names to values`);
    return undefined;
  }
  const tags: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw['tags'])) {
    if (key === '' || key === '__proto__' || typeof value !== 'string' || value === '') {
      problem(`node "${name}": tag ${JSON.stringify(key)} needs a non-empty string value`);
    } else {
      tags[key] = value;
    }
  }
  return tags;
}

/**
 * A node's `slots` (docs/design.md D30 for an upstream node, D31 for every kind): the most of this
 * gateway's requests in flight on it at once; a whole number ≥ 1, else a problem naming the node.
 */
export function slotsOf(
  raw: Record<string, unknown>,
  name: string,
  problem: (message: string) => void,
): { readonly slots?: number } {
  const slots = raw['slots'];
  if (slots === undefined) {
    return {};
  }
  if (typeof slots !== 'number' || !Number.isInteger(slots) || slots < 1) {
    problem(`node "${name}": slots must be a whole number of at least 1`);
    return {};
  }
  return { slots };
}
