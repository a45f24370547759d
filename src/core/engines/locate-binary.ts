/**
 * Finds an engine's executable: each of its names on PATH, then its fixed install locations
 * (oMLX's app bundle). "A runner this host cannot serve" is one whose binary is not found here
 * (docs/design.md D6).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

import { ENGINES, type Runner } from './engine-table.ts';

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The first executable file called `name` in the PATH's absolute directories. */
export function findOnPath(name: string, pathVariable: string | undefined): string | undefined {
  const dirs = (pathVariable ?? '').split(delimiter).filter((dir) => dir !== '' && isAbsolute(dir));
  return dirs.map((dir) => join(dir, name)).find(isExecutable);
}

/**
 * A program named by the Svcfile (COMMAND's first word, an ENGINE path; docs/design.md D31): a
 * name with a slash is that file (relative to the working directory), any other is looked up on
 * PATH.
 */
export function locateProgram(name: string, pathVariable: string | undefined): string | undefined {
  if (name.includes('/')) {
    const path = resolve(name);
    return isExecutable(path) ? path : undefined;
  }
  return findOnPath(name, pathVariable);
}

/** Why a start is refused when the executable is not there (a path, or a name not on PATH). */
export function missingProgram(
  bin: string,
  program: string | undefined,
  installHint: string,
): string {
  const where = program?.includes('/') === true ? 'is not an executable file' : 'not found on PATH';
  return `${bin} ${where}: ${installHint}`;
}

/** The engine's executable: `program` when the Svcfile names it, else the engine's own names. */
export function locateBinary(
  runner: Runner,
  pathVariable: string | undefined,
  program?: string,
): string | undefined {
  if (program !== undefined) {
    return locateProgram(program, pathVariable);
  }
  const engine = ENGINES[runner];
  for (const name of engine.binaries) {
    const found = findOnPath(name, pathVariable);
    if (found !== undefined) {
      return found;
    }
  }
  return engine.fallbackPaths.find(isExecutable);
}

/**
 * The executable as `--dry-run` prints it (docs/design.md D3: exactly what would run): the bare
 * name when a shell would find that very file under it on PATH, so the line stays copy-pastable;
 * otherwise the resolved path (another of the engine's names, oMLX's app bundle). Not found: the
 * bare name.
 */
export function printedBinary(
  runner: Runner,
  name: string,
  pathVariable: string | undefined,
  program?: string,
): string {
  if (program !== undefined) {
    return program;
  }
  const found = locateBinary(runner, pathVariable);
  if (found === undefined) {
    return name;
  }
  const dirs = (pathVariable ?? '').split(delimiter).filter((dir) => dir !== '' && isAbsolute(dir));
  const underName = dirs.map((dir) => join(dir, name)).find(isExecutable);
  return underName === found ? name : found;
}
