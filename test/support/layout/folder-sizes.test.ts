/** The folder-size rule counts what a reader opens, folder by folder, and names what to do. */
import { describe, expect, it } from 'vitest';

import { oversizedFolders, relativeFiles, sourceCounts } from './folder-sizes.ts';

const many = (folder: string, count: number, suffix = '.ts'): string[] =>
  Array.from({ length: count }, (_, index) => `${folder}/file-${index}${suffix}`);

describe('sourceCounts', () => {
  it('counts each folder’s own modules, leaving out tests, subfolders’ files and non-code', () => {
    const files = [
      ...many('src/a', 2),
      'src/a/x.test.ts',
      'src/a/page.js',
      'src/a/launch.mjs',
      'src/a/page.css',
      'src/a/README.md',
      'src/a/deep/y.ts',
      'test/e2e/z.e2e.test.ts',
    ];
    expect(sourceCounts(files)).toEqual([
      { folder: 'src/a', sources: 4 },
      { folder: 'src/a/deep', sources: 1 },
    ]);
  });
});

describe('oversizedFolders', () => {
  it('names each folder over the limit with its count and the fix, and passes one at it', () => {
    const files = [
      ...many('test/support', 4),
      ...many('test/support', 9, '.test.ts'),
      ...many('bench', 3),
      ...many('src/ok', 3),
    ];
    expect(oversizedFolders(files, 3)).toEqual([
      'test/support/ holds 4 source files (at most 3, tests counted apart): split it into ' +
        'subfolders by concern and update the imports and the maps in CONTRIBUTING.md and ' +
        'ARCHITECTURE.md',
    ]);
  });
});

describe('relativeFiles', () => {
  it('makes absolute paths relative to the root', () => {
    expect(relativeFiles('/r', ['/r/src/a.ts', '/r/bench/b/c.ts'])).toEqual([
      'src/a.ts',
      'bench/b/c.ts',
    ]);
  });
});
