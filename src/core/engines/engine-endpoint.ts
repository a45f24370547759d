/**
 * Where a running engine answers (spec §2.2), read from the command it was started with: its own
 * `--port` (else the engine's default), whether its `--host` is loopback-only, and whether it was
 * gated with a key. Pure: the daemon and `serve --api` report the same thing for the same argv.
 */
import type { EngineEndpoint } from '../contract/schemas.ts';
import { ENGINES, type Runner } from './engine-table.ts';

const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '[::]', '*']);

/** The value of the last occurrence of `flag` (engines take the last one too). */
export function lastFlagValue(args: readonly string[], flag: string): string | undefined {
  let value: string | undefined;
  args.forEach((arg, index) => {
    if (arg === flag) {
      value = args[index + 1];
    } else if (arg.startsWith(`${flag}=`)) {
      value = arg.slice(flag.length + 1);
    }
  });
  return value;
}

function isLoopbackName(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d+\.\d+\.\d+$/.test(bare);
}

/** The engine's bind as its argv states it, or as `bind` gives it for an engine with no flags. */
function bindOf(
  runner: Runner,
  args: readonly string[],
  bind: EngineBind | undefined,
): { host: string; port: number } {
  const engine = ENGINES[runner];
  const portText = engine.port === undefined ? undefined : lastFlagValue(args, engine.port.flag);
  const port =
    portText !== undefined && /^\d+$/.test(portText)
      ? Number(portText)
      : (bind?.port ?? engine.defaultPort);
  const host =
    (engine.host === undefined ? undefined : lastFlagValue(args, engine.host.flag)) ??
    bind?.host ??
    engine.defaultHost;
  return { host, port };
}

/** Where a `PROVIDER command` program listens: its argv has no flags to read (docs/design.md D31). */
export interface EngineBind {
  readonly host?: string;
  readonly port: number;
}

export function engineEndpoint(
  runner: Runner,
  args: readonly string[],
  options: { readonly keyed: boolean; readonly path?: string; readonly bind?: EngineBind },
): EngineEndpoint {
  const { host, port } = bindOf(runner, args, options.bind);
  const hosts = host.split(',').map((part) => part.trim());
  const loopbackOnly =
    !hosts.some((part) => WILDCARD_HOSTS.has(part)) && hosts.every(isLoopbackName);
  const path =
    options.path === undefined || options.path === '/v1' || options.path === ''
      ? undefined
      : options.path;
  return {
    port,
    ...(path === undefined ? {} : { path }),
    loopbackOnly,
    requiresKey: options.keyed,
  };
}

/**
 * The URL this machine reaches the engine on, for health checks and the metrics scrape: its own
 * bind host (a wildcard bind is reached on 127.0.0.1) and port.
 */
export function localEngineUrl(
  runner: Runner,
  args: readonly string[],
  port: number,
  bind?: EngineBind,
): string {
  const host = bindOf(runner, args, bind).host.split(',')[0]?.trim() ?? '';
  const reachable = WILDCARD_HOSTS.has(host) ? '127.0.0.1' : host.replace(/^\[(.*)\]$/, '$1');
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
