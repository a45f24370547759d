/**
 * A llama-swap model whose `cmd` is not an engine svc knows (a container, whisper.cpp,
 * stable-diffusion.cpp, any OpenAI-compatible server) → `PROVIDER command` (docs/design.md
 * D31): the cmd as COMMAND (`${PORT}` kept for svc to number), `cmdStop` as STOP (`${PID}`
 * kept), `checkEndpoint` as HEALTH, and where the program listens from `proxy` when the cmd
 * does not take `${PORT}`. Pure.
 */
import { splitCommand } from '../core/engines/split-command.ts';
import type { EngineFields } from './engine-flags.ts';
import { PORT_MACRO } from './macros.ts';
import type { NotCarried } from './not-carried.ts';

export interface CommandModel {
  readonly argv: readonly string[];
  readonly stop?: readonly string[];
  readonly health?: string;
}

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Where `proxy` says the program listens, when it is this machine and names a port. */
function proxyBind(proxy: unknown): { host?: string; port?: number } {
  const match =
    typeof proxy === 'string' ? /^https?:\/\/(\[[^\]]+\]|[^:/]+):(\d+)/.exec(proxy) : null;
  const host = match?.[1]?.toLowerCase();
  if (match === null || host === undefined || !LOOPBACK.has(host)) {
    return {};
  }
  return { host: host === 'localhost' ? '127.0.0.1' : host, port: Number(match[2]) };
}

export function commandModel(
  words: readonly string[],
  raw: Readonly<Record<string, unknown>>,
  expand: (field: string, text: string) => string,
  losses: NotCarried[],
  problem: (field: string, message: string) => void,
):
  | {
      command: CommandModel;
      fields: EngineFields;
      env: { key: string; value: string }[];
      usesPort: boolean;
    }
  | undefined {
  const env: { key: string; value: string }[] = [];
  let start = 0;
  for (; start < words.length; start += 1) {
    const match = ASSIGNMENT.exec(words[start] ?? '');
    if (match === null) {
      break;
    }
    env.push({ key: match[1] ?? '', value: match[2] ?? '' });
  }
  const argv = words.slice(start);
  if (argv.length === 0) {
    losses.unshift({ what: 'the model', why: 'its cmd names no program' });
    return undefined;
  }
  let stop: string[] | undefined;
  const cmdStop = raw['cmdStop'];
  if (typeof cmdStop === 'string' && cmdStop.trim() !== '') {
    const split = splitCommand(expand('cmdStop', cmdStop));
    if (typeof split === 'string') {
      problem('cmdStop', split);
    } else {
      stop = split;
    }
  }
  const checkEndpoint = raw['checkEndpoint'];
  let health: string | undefined;
  if (typeof checkEndpoint === 'string' && checkEndpoint.startsWith('/')) {
    health = checkEndpoint;
  } else if (checkEndpoint !== undefined) {
    losses.push({
      what: `checkEndpoint ${JSON.stringify(checkEndpoint)}`,
      why: 'svc always waits for the program to answer 200 on HEALTH (default /health) before sending it requests',
    });
  }
  const usesPort = argv.some((word) => word.includes(PORT_MACRO));
  const bind = usesPort ? {} : proxyBind(raw['proxy']);
  if (!usesPort && bind.port === undefined) {
    losses.unshift({
      what: 'the model',
      why: "its cmd takes no ${PORT} and its proxy names no port on this machine, so svc cannot tell where the program listens: add BASEURL <host:port> to its Svcfile's lines by hand",
    });
    return undefined;
  }
  return {
    command: {
      argv,
      ...(stop === undefined ? {} : { stop }),
      ...(health === undefined ? {} : { health }),
    },
    fields: { provider: 'command', ...bind, preset: [] },
    env,
    usesPort,
  };
}
