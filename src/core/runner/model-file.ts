/**
 * A local model file that is not there fails the start before anything is spawned (a 400 that
 * names it), rather than as an engine that dies a moment after the start window. Only llama.cpp
 * takes a file path (`-m`, `--model`, docs/design.md D2); the other engines take repo ids or
 * directories they resolve themselves. Relative paths resolve against svc's working directory, as
 * the engine would resolve them.
 */
import { existsSync } from 'node:fs';

import type { Runner } from '../engines/engine-table.ts';

const MODEL_FLAGS = ['-m', '--model'];

/** The model path given to the engine, for runners that take one. Pure. */
export function modelFileArgument(runner: Runner, args: readonly string[]): string | undefined {
  if (runner !== 'llamacpp') {
    return undefined;
  }
  let found: string | undefined;
  args.forEach((arg, index) => {
    const equals = arg.indexOf('=');
    if (equals > 0 && MODEL_FLAGS.includes(arg.slice(0, equals))) {
      found = arg.slice(equals + 1);
    } else if (MODEL_FLAGS.includes(arg)) {
      found = args[index + 1] ?? found;
    }
  });
  return found;
}

/** The model path when it names a file that does not exist; undefined otherwise. */
export function missingModelFile(
  runner: Runner,
  args: readonly string[],
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  const path = modelFileArgument(runner, args);
  return path === undefined || exists(path) ? undefined : path;
}
