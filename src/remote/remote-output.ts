/**
 * What `svc remote status|start|stats` print: lines for a person, JSON with --json. Only the
 * mapped replies (replies.ts) reach here, so no key or credential can be printed.
 */
import { isObject, type RemoteStats, type RemoteStatus } from '../core/remote/replies.ts';

type Out = (text: string) => void;

function lines(name: string, fields: Readonly<Record<string, unknown>>): string {
  const shown = Object.entries(fields).filter(
    ([, value]) => value !== undefined && typeof value !== 'object',
  );
  const width = Math.max(...shown.map(([key]) => key.length));
  return [
    name,
    ...shown.map(([key, value]) => `  ${`${key}:`.padEnd(width + 1)} ${String(value)}`),
  ].join('\n');
}

export function engineUrlOf(status: RemoteStatus): string | undefined {
  const engine = status.engine;
  if (engine === undefined) {
    return undefined;
  }
  const host = engine.host ?? '127.0.0.1';
  const origin = /^https?:\/\//.test(host) ? host : `http://${host}:${String(engine.port)}`;
  return `${origin}${engine.path ?? '/v1'}`;
}

export function printStatus(name: string, status: RemoteStatus, json: boolean, out: Out): void {
  if (json) {
    out(JSON.stringify({ name, ...status }, null, 2));
    return;
  }
  const { engine: _engine, ...rest } = status;
  out(lines(name, { ...rest, engine: engineUrlOf(status) }));
}

export function printStats(name: string, stats: RemoteStats, json: boolean, out: Out): void {
  if (json) {
    out(JSON.stringify({ name, ...stats }, null, 2));
    return;
  }
  const tokens = stats.tokens as Record<string, unknown> | undefined;
  out(
    lines(name, {
      ...stats,
      ...(tokens === undefined
        ? {}
        : {
            tokens: Object.entries(tokens)
              .map(([key, value]) => `${key} ${String(value)}`)
              .join(', '),
          }),
    }),
  );
}

/** A stop or pause reply's message, when it has one (bounded: a line, not a page). */
export function messageOf(reply: unknown): string | undefined {
  if (!isObject(reply)) {
    return undefined;
  }
  const message = reply['message'] ?? reply['state'];
  return typeof message === 'string' && message !== '' ? message.slice(0, 500) : undefined;
}
