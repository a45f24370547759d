/**
 * One llama-swap model → the fields of its Svcfile (and preset), its idle stop, and what could
 * not carry over. Problems that make the configuration unreadable (no `cmd`, a macro defined
 * nowhere, a `ttl` that is no number) are reported, naming the field and its line; everything
 * svc has no place for is a loss with its reason. Pure.
 */
import { splitCommand } from '../core/engines/split-command.ts';
import { type CommandModel, commandModel } from './command-model.ts';
import { slotsOf } from './concurrency-limit.ts';
import type { ConfigYaml } from './config-yaml.ts';
import { engineArgs } from './engine-command.ts';
import { type EngineFields, engineFields } from './engine-flags.ts';
import { type Environment, expandMacros, macroScope, PORT_MACRO } from './macros.ts';
import { type ModelNames, modelNames } from './model-names.ts';
import { type NotCarried, unknownKey } from './not-carried.ts';

export interface ImportedModel {
  readonly id: string;
  readonly fields: EngineFields;
  /** `PROVIDER command`: a cmd that is no engine svc knows (docs/design.md D31). */
  readonly command?: CommandModel;
  /** The cmd (or proxy) takes `${PORT}`: it gets the next of llama-swap's startPort ports. */
  readonly usesPort: boolean;
  readonly env: readonly { readonly key: string; readonly value: string }[];
  /** Seconds; 0 never stops it, absent follows `globalTTL` (llama-swap's -1). */
  readonly ttl?: number;
  /** Aliases, unlisted, useModelName and filters (docs/design.md D31). */
  readonly names: ModelNames;
  /** `concurrencyLimit`, as the node's `slots` (docs/design.md D31); absent: llama-swap's 0. */
  readonly slots?: number;
}

export interface ModelOutcome {
  /** Absent when the model as a whole cannot be carried (its reason is among the losses). */
  readonly model?: ImportedModel;
  readonly losses: readonly NotCarried[];
}

/** Model settings svc has no place for, each with the reason. */
const NO_PLACE: Readonly<Record<string, string>> = {
  name: 'svc lists the model by its ALIAS (the model id) only',
  description: 'svc lists the model by its ALIAS (the model id) only',
  metadata: "svc's /v1/models carries no per-model metadata",
  sendLoadingState:
    "svc's gateway reports a wake as SSE comments on a waiting stream, not in reasoning_content",
  timeouts: "svc's gateway has one reply timeout for all models (svc gateway --reply-timeout)",
  capabilities: 'svc declares no model capabilities',
  unloadTimeout: 'svc stops an engine with SIGTERM, then SIGKILL after 10 s',
};

/** Handled below, or consumed by the macro expansion. */
const HANDLED = new Set([
  'cmd',
  'cmdStop',
  'env',
  'ttl',
  'proxy',
  'checkEndpoint',
  'aliases',
  'macros',
  // docs/design.md D31 (model-names.ts).
  'useModelName',
  'unlisted',
  'filters',
  // docs/design.md D31: the node's slots.
  'concurrencyLimit',
]);

/** Every key of a llama-swap model, for naming the closest to one it does not have. */
const MODEL_KEYS = [...HANDLED, ...Object.keys(NO_PLACE), 'setParamsByID'];

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SECRET_NAME = /token|key|secret|password/i;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An environment entry for the Svcfile's ENV, or the reason it cannot be one. */
function envEntry(
  key: string,
  value: string,
  losses: NotCarried[],
): { key: string; value: string } | undefined {
  if (SECRET_NAME.test(key)) {
    // docs/design.md D5: a secret is never written into a file svc makes, nor shown.
    losses.push({
      what: `${key} (value not shown)`,
      why: 'a secret is not written into a Svcfile: put it in the .env beside it',
    });
    return undefined;
  }
  if (!ENV_NAME.test(key) || /\s/.test(value) || value.startsWith('#')) {
    losses.push({
      what: `${key}=${value}`,
      why: 'a Svcfile ENV value is one word: no spaces',
    });
    return undefined;
  }
  return { key, value };
}

/** The proxy llama-swap sends to: carried when it is this engine on loopback. */
function proxyLoss(proxy: string, fields: EngineFields): NotCarried | undefined {
  const match = /^https?:\/\/(\[[^\]]+\]|[^:/]+)(?::([^/]+))?/.exec(proxy);
  const host = match?.[1]?.toLowerCase();
  const port = match?.[2];
  const sameEngine =
    host !== undefined &&
    LOOPBACK.has(host) &&
    (port === PORT_MACRO || (port !== undefined && Number(port) === fields.port));
  if (sameEngine) {
    return undefined;
  }
  return {
    what: `proxy ${proxy}`,
    why:
      host !== undefined && !LOOPBACK.has(host)
        ? "a remote URL: svc's gateway reaches a node's engine where its Svcfile's BASEURL says, on this machine"
        : "svc's gateway reaches the engine at its Svcfile's BASEURL, which is the cmd's own --host and --port",
  };
}

export function importModel(
  id: string,
  raw: unknown,
  config: { readonly macros: unknown; readonly yaml: ConfigYaml; readonly env: Environment },
  problem: (message: string) => void,
): ModelOutcome {
  const at = (...path: string[]): string => config.yaml.where(['models', id, ...path]);
  if (!isRecord(raw)) {
    problem(`${at()}: a model is a mapping with at least cmd`);
    return { losses: [] };
  }
  const losses: NotCarried[] = [];
  const scope = macroScope(
    [
      { where: 'macros', macros: config.macros },
      { where: `models.${id}.macros`, macros: raw['macros'] },
    ],
    id,
    config.env,
    (message) => {
      problem(`${at('macros')}: ${message}`);
    },
  );
  const expand = (field: string, text: string): string =>
    expandMacros(text, scope, (message) => {
      problem(`${at(field)}: ${message}`);
    });

  for (const key of Object.keys(raw)) {
    if (HANDLED.has(key)) {
      continue;
    }
    losses.push({ what: key, why: NO_PLACE[key] ?? unknownKey(key, MODEL_KEYS) });
  }

  let ttl: number | undefined;
  const rawTtl = raw['ttl'];
  if (rawTtl !== undefined) {
    if (typeof rawTtl !== 'number' || !Number.isInteger(rawTtl) || rawTtl < -1) {
      problem(`${at('ttl')}: ttl is whole seconds, 0 (never unload) or -1 (globalTTL)`);
    } else if (rawTtl >= 0) {
      ttl = rawTtl;
    }
  }

  const names = modelNames(id, raw, losses, expand);
  const slots = slotsOf(raw['concurrencyLimit'], () => {
    problem(
      `${at('concurrencyLimit')}: concurrencyLimit is a whole number of requests, 0 for the default`,
    );
  });

  const cmd = raw['cmd'];
  if (typeof cmd !== 'string' || cmd.trim() === '') {
    problem(
      `${cmd === undefined ? at() : at('cmd')}: cmd is required: the command that starts the model's server`,
    );
    return { losses };
  }
  if (/\s/.test(id) || id.startsWith('#')) {
    losses.unshift({
      what: 'the model',
      why: 'its id has a space or starts with #, so it cannot be a Svcfile ALIAS',
    });
    return { losses };
  }
  const words = splitCommand(expand('cmd', cmd));
  if (typeof words === 'string') {
    problem(`${at('cmd')}: ${words}`);
    return { losses };
  }
  const args = engineArgs(words);
  if (!('runner' in args)) {
    // docs/design.md D31: any other program runs as PROVIDER command.
    const program = commandModel(words, raw, expand, losses, (field, message) => {
      problem(`${at(field)}: ${message}`);
    });
    if (program === undefined) {
      return { losses };
    }
    const env = program.env.flatMap((pair) => envEntry(pair.key, pair.value, losses) ?? []);
    return {
      model: {
        id,
        fields: program.fields,
        command: program.command,
        usesPort: program.usesPort,
        env: [...env, ...modelEnv(raw, expand, at, problem, losses)],
        ...(ttl === undefined ? {} : { ttl }),
        ...(slots === undefined ? {} : { slots }),
        names,
      },
      losses,
    };
  }
  // An engine svc knows: stopped and checked its own way (SIGTERM; GET /health).
  if (raw['cmdStop'] !== undefined) {
    losses.push({
      what: 'cmdStop',
      why: 'svc stops the engine itself: SIGTERM, then SIGKILL after 10 s',
    });
  }
  const checkEndpoint = raw['checkEndpoint'];
  if (checkEndpoint !== undefined && checkEndpoint !== '/health') {
    losses.push({
      what: `checkEndpoint ${JSON.stringify(checkEndpoint)}`,
      why: "svc checks readiness the engine's own way (llama-server and vLLM: GET /health); HEALTH is for PROVIDER command only",
    });
  }
  const { fields, losses: flagLosses } = engineFields(args);
  losses.push(...flagLosses);
  const served = names.servedName ?? id;
  if (fields.servedName !== undefined && fields.servedName !== served) {
    losses.push({
      what: `served name ${fields.servedName}`,
      why: `ALIAS is "${served}", the name llama-swap sent requests under (the model id, else useModelName)`,
    });
  }
  if (typeof raw['proxy'] === 'string') {
    const loss = proxyLoss(expand('proxy', raw['proxy']), fields);
    if (loss !== undefined) {
      losses.push(loss);
    }
  }

  const env = [
    ...args.env.flatMap((pair) => envEntry(pair.key, pair.value, losses) ?? []),
    ...modelEnv(raw, expand, at, problem, losses),
  ];
  const usesPort =
    words.some((word) => word.includes(PORT_MACRO)) ||
    (typeof raw['proxy'] === 'string' && raw['proxy'].includes(PORT_MACRO));
  return {
    model: {
      id,
      fields,
      env,
      usesPort,
      ...(ttl === undefined ? {} : { ttl }),
      ...(slots === undefined ? {} : { slots }),
      names,
    },
    losses,
  };
}

/** The model's `env` list as Svcfile ENV entries (secrets and multi-word values left out). */
function modelEnv(
  raw: Readonly<Record<string, unknown>>,
  expand: (field: string, text: string) => string,
  at: (...path: string[]) => string,
  problem: (message: string) => void,
  losses: NotCarried[],
): { key: string; value: string }[] {
  const rawEnv = raw['env'];
  if (rawEnv !== undefined && !Array.isArray(rawEnv)) {
    problem(`${at('env')}: env is a list of NAME=value strings`);
  }
  return (Array.isArray(rawEnv) ? (rawEnv as unknown[]) : []).flatMap((entry) => {
    const text = typeof entry === 'string' ? expand('env', entry) : '';
    const equals = text.indexOf('=');
    if (equals <= 0) {
      problem(`${at('env')}: "${String(entry)}" is not NAME=value`);
      return [];
    }
    return envEntry(text.slice(0, equals), text.slice(equals + 1), losses) ?? [];
  });
}
