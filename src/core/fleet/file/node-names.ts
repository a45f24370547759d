/**
 * A node's further names and request presets (docs/design.md D31): `aliases: [<name>…]` it also
 * answers to, `unlisted: true` keeping its names out of `/v1/models` (still served), and
 * `params: {set: {<key>: <value>…}, strip: [<key>…]}` changing the top-level keys of every request
 * body it serves. Pure: the node's mapping in, the settings and problems naming the node out.
 */
import { isRecord } from './node-fields.ts';
import type { Problem } from './scheduling-values.ts';

/** What a request body gets on its way to a node or for a variant: strip first, then set. */
export interface RequestParams {
  readonly set?: Readonly<Record<string, unknown>>;
  readonly strip?: readonly string[];
}

export interface NodeNames {
  readonly aliases?: readonly string[];
  readonly unlisted?: boolean;
  readonly params?: RequestParams;
}

/** A list of non-empty names, each once; problems name `place`. */
export function nameListOf(value: unknown, place: string, problem: Problem): string[] | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (!Array.isArray(value)) {
    problem(
      `${place} must be a list of names, as in [${JSON.stringify('a')}, ${JSON.stringify('b')}]`,
    );
    return undefined;
  }
  const names: string[] = [];
  for (const entry of value) {
    if (typeof entry !== 'string' || entry === '') {
      problem(`${place}: ${JSON.stringify(entry)} is not a name (a non-empty string)`);
    } else if (names.includes(entry)) {
      problem(`${place} lists "${entry}" twice`);
    } else {
      names.push(entry);
    }
  }
  return names;
}

/** `set` and `strip` at `place` (`node "a": params`, `variants "fast"`). */
export function requestParamsOf(
  set: unknown,
  strip: unknown,
  place: string,
  problem: Problem,
): RequestParams {
  let setKeys: Record<string, unknown> | undefined;
  if (set !== undefined) {
    if (isRecord(set)) {
      setKeys = set;
    } else {
      problem(`${place}.set must map body keys to values, as in {temperature: 0.6}`);
    }
  }
  const stripKeys = nameListOf(strip, `${place}.strip`, problem);
  // The body's `model` is the gateway's to write: it routes the request (docs/design.md D31).
  if (setKeys !== undefined && Object.hasOwn(setKeys, 'model')) {
    problem(
      `${place}.set may not set model: the gateway writes the served name there; give the node an alias instead`,
    );
  }
  if (stripKeys?.includes('model') === true) {
    problem(`${place}.strip may not strip model: the engine needs it`);
  }
  return {
    ...(setKeys === undefined ? {} : { set: setKeys }),
    ...(stripKeys === undefined || stripKeys.length === 0 ? {} : { strip: stripKeys }),
  };
}

export function nodeNamesOf(
  raw: Readonly<Record<string, unknown>>,
  name: string,
  problem: Problem,
): NodeNames {
  const at = (key: string): string => `node "${name}": ${key}`;
  const aliases = nameListOf(raw['aliases'], at('aliases'), problem);
  const unlisted = raw['unlisted'];
  if (unlisted !== undefined && typeof unlisted !== 'boolean') {
    problem(`${at('unlisted')} must be true or false, not ${JSON.stringify(unlisted)}`);
  }
  let params: RequestParams | undefined;
  const rawParams = raw['params'];
  if (rawParams !== undefined) {
    if (isRecord(rawParams)) {
      params = requestParamsOf(rawParams['set'], rawParams['strip'], at('params'), problem);
    } else {
      problem(`${at('params')} must be a mapping with set and/or strip`);
    }
  }
  return {
    ...(aliases === undefined || aliases.length === 0 ? {} : { aliases }),
    ...(unlisted === true ? { unlisted: true } : {}),
    ...(params === undefined || (params.set === undefined && params.strip === undefined)
      ? {}
      : { params }),
  };
}
