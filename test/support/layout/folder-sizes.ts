/**
 * How many source files each folder holds, for the architecture test: a folder past the limit
 * holds more than one concern and is split into subfolders by concern. Tests sit beside the code
 * they test and are counted apart: `foo.test.ts` does not count toward its folder's limit.
 */
import { posix, relative, sep } from 'node:path';

/** Code a reader opens to learn the folder: TypeScript and JavaScript modules. */
const SOURCE = /\.(?:[cm]?ts|[cm]?js)$/;
const TEST = /\.test\.[cm]?[jt]s$/;

export interface FolderSize {
  /** The folder, relative to the root, with `/` separators. */
  readonly folder: string;
  readonly sources: number;
}

/** Source files a folder holds directly (not in its subfolders), tests left out. Pure. */
export function sourceCounts(files: readonly string[]): FolderSize[] {
  const counts = new Map<string, number>();
  for (const file of files.filter((path) => SOURCE.test(path) && !TEST.test(path))) {
    const folder = posix.dirname(file);
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return [...counts].map(([folder, sources]) => ({ folder, sources }));
}

/** Each folder over `max` source files, as the line a failing test prints. Pure. */
export function oversizedFolders(files: readonly string[], max: number): string[] {
  return sourceCounts(files)
    .filter(({ sources }) => sources > max)
    .sort((a, b) => a.folder.localeCompare(b.folder))
    .map(
      ({ folder, sources }) =>
        `${folder}/ holds ${sources} source files (at most ${max}, tests counted apart): ` +
        'split it into subfolders by concern and update the imports and the maps in ' +
        'CONTRIBUTING.md and ARCHITECTURE.md',
    );
}

/** Absolute paths as `oversizedFolders` takes them: relative to `root`, `/`-separated. */
export function relativeFiles(root: string, paths: readonly string[]): string[] {
  return paths.map((path) => relative(root, path).split(sep).join('/'));
}
