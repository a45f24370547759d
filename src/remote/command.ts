/**
 * `svc remote add|ls|rm|status|start|stop|pause|stats|keep` (docs/remote.md): the registry of
 * remote environments and their control-plane calls, one environment at a time. Every call is
 * SigV4-signed with the standard AWS credential chain; no reply's key or credential is printed.
 */
import { parseCommandArgs, renderCommandHelp } from '../core/cli-args.ts';
import { closestName } from '../core/closest-name.ts';
import type { CommandIo } from '../core/command.ts';
import { parseDuration } from '../core/duration.ts';
import { SvcError } from '../core/errors.ts';
import { configDirFor } from '../core/paths.ts';
import { connectRemote } from '../core/remote/connect.ts';
import { RemoteCallError } from '../core/remote/control-plane.ts';
import { remoteNameProblem } from '../core/remote/names.ts';
import { keepUntil, rfc3339 } from './keep-until.ts';
import { addRemote, listRemotes, removeRemote } from './registry-commands.ts';
import { messageOf, printStats, printStatus } from './remote-output.ts';

const OPTIONS = {
  'start-url': { type: 'string', value: '<url>', description: 'add: the status and start URL' },
  'stop-url': { type: 'string', value: '<url>', description: 'add: the stop and pause URL' },
  'stats-url': { type: 'string', value: '<url>', description: 'add: the stats URL' },
  'update-url': { type: 'string', value: '<url>', description: 'add: the update URL (keep)' },
  'deploy-url': { type: 'string', value: '<url>', description: 'add: the deploy URL' },
  'env-url': { type: 'string', value: '<url>', description: 'add: the engine-address URL' },
  region: { type: 'string', value: '<region>', description: 'add: the AWS region to sign for' },
  environment: {
    type: 'string',
    value: '<env>',
    description: 'add: the env query every call carries (default: the name)',
  },
  keep: {
    type: 'string',
    value: '<when>',
    description: 'start: keep it until then (a duration or an RFC 3339 time)',
  },
  timeout: {
    type: 'string',
    value: '<duration>',
    description: 'start: how long to wait for the boot (default 10m)',
  },
  force: { type: 'boolean', description: 'pause: pause even while requests are running' },
  json: { type: 'boolean', description: 'Print JSON instead of lines or a table' },
} as const;

export const help = renderCommandHelp(
  [
    'svc remote add <name> --start-url <url> --stop-url <url> [--stats-url <url>] [--update-url <url>]',
    '               [--deploy-url <url>] [--env-url <url>] [--region <region>] [--environment <env>]',
    'svc remote ls | rm <name>',
    'svc remote status|stop|stats <name>',
    'svc remote start <name> [--keep 2h] [--timeout 10m]',
    'svc remote pause <name> [--force]',
    'svc remote keep <name> <duration | RFC 3339 time>',
  ],
  'Registers remote environments (cloud GPU nodes booted through their control plane) and drives\n' +
    'them: every call is signed with your AWS credentials (docs/remote.md).',
  OPTIONS,
);

const VERBS = ['add', 'ls', 'rm', 'status', 'start', 'stop', 'pause', 'stats', 'keep'] as const;
type Verb = (typeof VERBS)[number];

function isVerb(word: string | undefined): word is Verb {
  return (VERBS as readonly (string | undefined)[]).includes(word);
}

/** How many positionals each verb takes after itself. */
const ARITY: Readonly<Record<Verb, number>> = {
  add: 1,
  ls: 0,
  rm: 1,
  status: 1,
  start: 1,
  stop: 1,
  pause: 1,
  stats: 1,
  keep: 2,
};

export async function run(io: CommandIo): Promise<number> {
  const [verb, ...rest] = io.argv;
  if (!isVerb(verb)) {
    const near = verb === undefined ? undefined : closestName(verb, VERBS);
    throw new SvcError(
      'ERR_USAGE',
      `svc remote takes ${VERBS.join(', ')}${verb === undefined ? '' : `, not "${verb}"`}${near === undefined ? '' : `: did you mean "${near}"?`} (see svc remote --help)`,
    );
  }
  const { values, positionals } = parseCommandArgs('remote', OPTIONS, rest, ARITY[verb]);
  if (positionals.length < ARITY[verb]) {
    throw new SvcError(
      'ERR_USAGE',
      verb === 'keep'
        ? 'svc remote keep needs a name and a time: svc remote keep <name> 2h'
        : `svc remote ${verb} needs the environment's name (see svc remote ls)`,
    );
  }
  const configDir = configDirFor(io.env, io.cwd);
  const json = values.json === true;
  const out = (text: string): void => {
    io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  };
  const [name = '', when = ''] = positionals;
  if (verb === 'ls') {
    return listRemotes(configDir, json, out);
  }
  const badName = remoteNameProblem(name);
  if (badName !== undefined) {
    throw new SvcError('ERR_USAGE', `environment ${badName}`);
  }
  if (verb === 'add') {
    return addRemote(configDir, name, values, json, out);
  }
  if (verb === 'rm') {
    return removeRemote(configDir, name, json, out);
  }

  const control = await connectRemote(configDir, name, io.env);
  try {
    switch (verb) {
      case 'status':
        printStatus(name, await control.status(), json, out);
        return 0;
      case 'stats':
        printStats(name, await control.stats(), json, out);
        return 0;
      case 'start': {
        const timeoutText = values.timeout ?? '10m';
        const timeoutMs = parseDuration(timeoutText);
        if (timeoutMs === undefined) {
          throw new SvcError(
            'ERR_USAGE',
            `--timeout "${timeoutText}" is not a duration (write 30s, 5m or 1h)`,
          );
        }
        const keep = values.keep === undefined ? undefined : keepUntil(values.keep, Date.now());
        if (!json) {
          out(`${name}: booting as deployed (waiting up to ${timeoutText})`);
        }
        const status = await control.start({
          deadline: Date.now() + timeoutMs,
          ...(keep === undefined ? {} : { retainUntil: rfc3339(keep) }),
        });
        printStatus(name, status, json, out);
        return 0;
      }
      case 'stop':
      case 'pause': {
        const reply = verb === 'stop' ? await control.stop() : await control.pause(values.force);
        out(
          json
            ? JSON.stringify({ name, outcome: 'ok', message: messageOf(reply) }, null, 2)
            : `${name}: ${messageOf(reply) ?? (verb === 'stop' ? 'stopped' : 'paused')}`,
        );
        return 0;
      }
      case 'keep': {
        const until = rfc3339(keepUntil(when, Date.now()));
        await control.keep(new Date(until));
        out(
          json
            ? JSON.stringify({ name, outcome: 'ok', retainUntil: until }, null, 2)
            : `${name}: kept until ${until}`,
        );
        return 0;
      }
    }
  } catch (error) {
    if (error instanceof RemoteCallError) {
      throw new SvcError('ERR_UPSTREAM', error.message);
    }
    throw error;
  }
}
