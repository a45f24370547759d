/**
 * A llama-swap model's further names and request presets → the fleet node's (docs/design.md D31):
 * `aliases` as its aliases, `unlisted` as itself, `useModelName` as the name its engine serves (the
 * Svcfile's ALIAS; the model id becomes the node's first alias, so a request for the id reaches
 * the engine under that name, as llama-swap sent it), `filters.stripParams` and
 * `filters.setParams` as its `params`, and each `filters.setParamsByID` entry as a top-level
 * variant on the model. What has no place is a loss with its reason. Pure.
 */
import { type NotCarried, unknownKey } from './not-carried.ts';

export interface ImportedVariant {
  readonly set: Readonly<Record<string, unknown>>;
}

export interface ModelNames {
  readonly aliases?: readonly string[];
  readonly unlisted?: true;
  /** `useModelName`: the name the engine serves and requests are sent under. */
  readonly servedName?: string;
  readonly params?: {
    readonly set?: Readonly<Record<string, unknown>>;
    readonly strip?: readonly string[];
  };
  /** `setParamsByID`: further names on this model, each with its own `set`. */
  readonly variants?: Readonly<Record<string, ImportedVariant>>;
}

// `strip_params`: llama-swap's earlier spelling of stripParams, which its configurations still use.
const FILTER_KEYS = ['stripParams', 'strip_params', 'setParams', 'setParamsByID'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** llama-swap's aliases: a list of names (older configurations: of `{id}` mappings). */
export function aliasNames(raw: unknown): string[] {
  const list = Array.isArray(raw) ? (raw as unknown[]) : [];
  return list.flatMap((entry) => {
    if (typeof entry === 'string') {
      return [entry];
    }
    return isRecord(entry) && typeof entry['id'] === 'string' ? [entry['id']] : [];
  });
}

/** `stripParams: "temperature, top_p"`: llama-swap keeps `model` whatever the list says. */
function stripList(raw: unknown, losses: NotCarried[]): string[] {
  const words =
    typeof raw === 'string'
      ? raw.split(',')
      : Array.isArray(raw)
        ? (raw as unknown[]).map(String)
        : [];
  if (raw !== undefined && typeof raw !== 'string' && !Array.isArray(raw)) {
    losses.push({
      what: 'filters.stripParams',
      why: 'a comma-separated list of keys was expected',
    });
  }
  return words.map((word) => word.trim()).filter((word) => word !== '' && word !== 'model');
}

/** `setParams` without `model`: the gateway writes the served name there. */
function setMap(
  raw: unknown,
  what: string,
  losses: NotCarried[],
): Record<string, unknown> | undefined {
  if (raw === undefined) {
    return undefined;
  }
  if (!isRecord(raw)) {
    losses.push({ what, why: 'a mapping of body keys to values was expected' });
    return undefined;
  }
  const { model, ...rest } = raw;
  if (model !== undefined) {
    losses.push({
      what: `${what}.model`,
      why: "svc's gateway writes the node's served name into model (see useModelName)",
    });
  }
  return Object.keys(rest).length === 0 ? undefined : rest;
}

export function modelNames(
  id: string,
  raw: Readonly<Record<string, unknown>>,
  losses: NotCarried[],
  /** Macros expanded as in cmd (`${MODEL_ID}:high`): stripParams and setParamsByID's names. */
  expand: (field: string, text: string) => string = (_field, text) => text,
): ModelNames {
  const aliases = aliasNames(raw['aliases']).filter((alias) => alias !== id);
  const use = raw['useModelName'];
  const servedName = typeof use === 'string' && use !== '' && use !== id ? use : undefined;
  if (use !== undefined && typeof use !== 'string') {
    losses.push({ what: 'useModelName', why: 'a name was expected' });
  }
  const unlisted = raw['unlisted'] === true;

  const filters = raw['filters'];
  let params: ModelNames['params'];
  const variants: Record<string, ImportedVariant> = {};
  if (filters !== undefined && !isRecord(filters)) {
    losses.push({
      what: 'filters',
      why: 'a mapping with stripParams, setParams or setParamsByID was expected',
    });
  } else if (filters !== undefined) {
    for (const key of Object.keys(filters)) {
      if (!FILTER_KEYS.includes(key)) {
        losses.push({ what: `filters.${key}`, why: unknownKey(key, FILTER_KEYS) });
      }
    }
    const listed = ['strip_params', 'stripParams'].flatMap((key) => {
      const rawStrip = filters[key];
      return stripList(
        typeof rawStrip === 'string' ? expand('filters', rawStrip) : rawStrip,
        losses,
      );
    });
    const strip = [...new Set(listed)];
    let set = setMap(filters['setParams'], 'filters.setParams', losses);
    const byId = filters['setParamsByID'];
    if (isRecord(byId)) {
      for (const [written, value] of Object.entries(byId)) {
        const name = expand('filters', written);
        const own = setMap(value, `filters.setParamsByID.${name}`, losses);
        if (name === id) {
          // The model's own id: set after setParams, as llama-swap does, on the node's params.
          set = own === undefined ? set : { ...set, ...own };
        } else if (aliases.includes(name)) {
          losses.push({
            what: `filters.setParamsByID.${name}`,
            why: "an alias of the model: svc's params apply to every name of a node alike; make it a name of its own for a variant",
          });
        } else {
          variants[name] = { set: own ?? {} };
        }
      }
    } else if (byId !== undefined) {
      losses.push({
        what: 'filters.setParamsByID',
        why: 'a mapping of names to parameters was expected',
      });
    }
    if (strip.length > 0 || set !== undefined) {
      params = { ...(set === undefined ? {} : { set }), ...(strip.length > 0 ? { strip } : {}) };
    }
  }
  // useModelName: the engine serves that name, and the model id reaches it as an alias.
  const allAliases = servedName === undefined ? aliases : [id, ...aliases];
  return {
    ...(allAliases.length === 0 ? {} : { aliases: allAliases }),
    ...(unlisted ? { unlisted: true as const } : {}),
    ...(servedName === undefined ? {} : { servedName }),
    ...(params === undefined ? {} : { params }),
    ...(Object.keys(variants).length === 0 ? {} : { variants }),
  };
}
