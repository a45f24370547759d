/**
 * The fleet file of an import (docs/fleet-file.md): one `kind: local` node per model
 * (docs/design.md D27), llama-swap's `ttl`/`globalTTL` as `idleStop`, `hooks.on_startup.preload` as
 * `keepWarm`, and its swap groups as groups of one running member (docs/design.md D26). Pure: the
 * models and the config's settings in, the text and what could not carry over out.
 */
import { Document } from 'yaml';

import type { ConfigYaml } from './config-yaml.ts';
import { GATEWAY_TOKEN_ENV, GATEWAY_URL } from './gateway-section.ts';
import type { ModelNames } from './model-names.ts';
import type { NotCarried } from './not-carried.ts';
import { groupPlan } from './swap-groups.ts';

export interface FleetModel {
  readonly id: string;
  /**
   * The node's name: the model's directory, a plain file name as a local node's must be
   * (docs/design.md D27: its files live under nodes/<name>/); requests still use the id (its
   * ALIAS).
   */
  readonly node: string;
  /** The Svcfile's path relative to the fleet file. */
  readonly file: string;
  /** Seconds; 0 never stops it; absent follows globalTTL. */
  readonly ttl?: number;
  /** docs/design.md D31: the node's aliases, unlisted and params, and variants on it. */
  readonly names?: ModelNames;
  /** docs/design.md D31: `concurrencyLimit`, as the node's `slots`. */
  readonly slots?: number;
}

export interface FleetText {
  readonly text: string;
  /** Losses of the configuration as a whole. */
  readonly losses: readonly NotCarried[];
  /** Losses of single models, by id. */
  readonly modelLosses: ReadonlyMap<string, readonly NotCarried[]>;
}

/** docs/design.md D26 durations use the --wake-timeout syntax: `90s`, `5m`, `1h`. */
export function durationOf(seconds: number): string {
  if (seconds % 3600 === 0) {
    return `${seconds / 3600}h`;
  }
  return seconds % 60 === 0 ? `${seconds / 60}m` : `${seconds}s`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function fleetText(
  config: Record<string, unknown>,
  allIds: readonly string[],
  models: readonly FleetModel[],
  yaml: ConfigYaml,
  problem: (message: string) => void,
): FleetText {
  const losses: NotCarried[] = [];
  const modelLosses = new Map<string, NotCarried[]>();
  const lose = (id: string, loss: NotCarried): void => {
    modelLosses.set(id, [...(modelLosses.get(id) ?? []), loss]);
  };

  let globalTtl: number | undefined;
  const rawGlobal = config['globalTTL'];
  if (rawGlobal !== undefined) {
    if (typeof rawGlobal !== 'number' || !Number.isInteger(rawGlobal) || rawGlobal < 0) {
      problem(`${yaml.where(['globalTTL'])}: globalTTL is whole seconds, 0 for never`);
    } else if (rawGlobal > 0) {
      globalTtl = rawGlobal;
    }
  }

  const preload = new Set<string>();
  const hooks = config['hooks'];
  if (isRecord(hooks)) {
    for (const [hook, actions] of Object.entries(hooks)) {
      if (hook !== 'on_startup' || !isRecord(actions)) {
        losses.push({ what: `hooks.${hook}`, why: 'llama-swap has no such hook svc knows' });
        continue;
      }
      for (const [action, list] of Object.entries(actions)) {
        if (action !== 'preload' || !Array.isArray(list)) {
          losses.push({ what: `hooks.on_startup.${action}`, why: 'not a hook action svc knows' });
          continue;
        }
        for (const id of list as unknown[]) {
          const name = String(id);
          if (models.some((model) => model.id === name)) {
            preload.add(name);
          } else {
            losses.push({
              what: `hooks.on_startup.preload ${name}`,
              why: allIds.includes(name)
                ? 'that model is not carried over (see it below)'
                : 'no model has that id',
            });
          }
        }
      }
    }
  }

  const groups = groupPlan(
    config,
    allIds,
    models.map((model) => model.id),
    yaml,
    problem,
  );
  losses.push(...groups.losses);

  const nodes = models.map((model) => {
    const ttl = model.ttl ?? globalTtl;
    const warm = preload.has(model.id);
    if (warm && ttl !== undefined && ttl > 0) {
      lose(model.id, {
        what: `ttl ${ttl}`,
        why: 'it is preloaded, so keepWarm: on, which svc never idle-stops (llama-swap unloaded it after its ttl)',
      });
    }
    const group = groups.groupOf.get(model.id);
    return {
      name: model.node,
      kind: 'local',
      file: model.file,
      ...(group === undefined ? {} : { group }),
      ...(model.slots === undefined ? {} : { slots: model.slots }),
      ...(warm || model.ttl === undefined
        ? {}
        : {
            idleStop:
              model.ttl === 0
                ? globalTtl === undefined
                  ? undefined
                  : 'off'
                : durationOf(model.ttl),
          }),
      ...(warm ? { keepWarm: 'on' } : {}),
      ...(model.names?.aliases === undefined ? {} : { aliases: model.names.aliases }),
      ...(model.names?.unlisted === true ? { unlisted: true } : {}),
      ...(model.names?.params === undefined ? {} : { params: model.names.params }),
    };
  });
  // llama-swap's setParamsByID: each name a variant on the model it was given in.
  const variants = Object.fromEntries(
    models.flatMap((model) =>
      Object.entries(model.names?.variants ?? {}).map(([name, variant]) => [
        name,
        { model: model.id, ...(Object.keys(variant.set).length === 0 ? {} : { set: variant.set }) },
      ]),
    ),
  );

  const body = {
    // svc up, svc fleet and svc code in this directory find the gateway here, its token in the
    // .env beside this file (never printed).
    gateway: { url: GATEWAY_URL, tokenEnv: GATEWAY_TOKEN_ENV },
    ...(globalTtl === undefined ? {} : { idleStop: durationOf(globalTtl) }),
    ...(groups.groups.size === 0
      ? {}
      : {
          // llama-swap swaps as soon as another model is asked for; svc's default residency
          // (docs/design.md D26, 30 s) would make an imported fleet wait where llama-swap did not.
          groups: Object.fromEntries(
            [...groups.groups].map(([name, { max, ...flags }]) => [
              name,
              { max, minResidency: '0s', ...flags },
            ]),
          ),
        }),
    nodes: nodes.map((node) =>
      Object.fromEntries(Object.entries(node).filter(([, value]) => value !== undefined)),
    ),
    ...(Object.keys(variants).length === 0 ? {} : { variants }),
  };
  const document = new Document(body, { version: '1.2' });
  document.commentBefore =
    ' Imported from llama-swap by svc import llama-swap: each model is a local node, whose engine\n' +
    ' the gateway runs from the Svcfile its file names. Start them with svc up.';
  return { text: document.toString({ lineWidth: 0 }), losses, modelLosses };
}
