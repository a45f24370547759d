/**
 * The `svc` entry point: pick the subcommand, import it lazily, run it, and turn the outcome into
 * an exit status. This is the only place that calls process.exit, so every command stays callable
 * from tests as a plain function.
 */
import { COMMANDS } from './commands.ts';
import { closestName } from './core/closest-name.ts';
import { SvcError, toSvcError } from './core/errors.ts';
import { VERSION } from './core/version.ts';
import { renderMainHelp } from './help.ts';

const HELP_FLAGS = new Set(['-h', '--help']);

async function main(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || HELP_FLAGS.has(first)) {
    process.stdout.write(renderMainHelp(COMMANDS));
    return first === undefined ? 2 : 0;
  }
  if (first === '--version' || first === '-V') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const entry = COMMANDS.find((command) => command.name === first);
  if (entry === undefined) {
    const what = first.startsWith('-') ? `unknown option "${first}"` : `unknown command "${first}"`;
    // docs/design.md D20: name the closest command, so a typo is fixed in one try.
    const near = first.startsWith('-')
      ? undefined
      : closestName(
          first,
          COMMANDS.map((command) => command.name),
        );
    const hint = near === undefined ? '' : ` did you mean "${near}"?`;
    throw new SvcError('ERR_USAGE', `${what}:${hint} run svc --help for the commands`);
  }
  const command = await entry.load();
  const end = rest.indexOf('--');
  const options = end < 0 ? rest : rest.slice(0, end);
  if (options.some((arg) => HELP_FLAGS.has(arg))) {
    process.stdout.write(command.help);
    return 0;
  }
  return command.run({
    argv: rest,
    env: process.env,
    cwd: process.cwd(),
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  });
}

/** Exits once stdout and stderr have flushed (pipes are asynchronous on some platforms). */
function exit(status: number): void {
  let pending = 2;
  const done = (): void => {
    pending -= 1;
    if (pending === 0) {
      process.exit(status);
    }
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

main(process.argv.slice(2)).then(exit, (error: unknown) => {
  const failure = toSvcError(error);
  process.stderr.write(`svc: ${failure.message}\n`);
  if (failure.kind === 'system' && process.env['SVC_LOG_LEVEL'] === 'debug') {
    process.stderr.write(`${failure.stack ?? ''}\n`);
  }
  exit(failure.exitCode);
});
