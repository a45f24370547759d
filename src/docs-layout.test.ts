/**
 * The layout pages against the tree: CONTRIBUTING.md's "Layout" and ARCHITECTURE.md's "Map" draw
 * the repository as an indented tree in a fenced block. Every path either page names (a tree
 * entry, a file named in an entry's description, a path in code anywhere on the page) must exist,
 * a bare file name in code must be some file's name, and each tree must describe every folder of
 * `src/`, so a move that forgets the docs fails here. ARCHITECTURE.md describes the code as it is:
 * no word of work to come ("not yet", "later", "still") may stand in it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const ROOT = join(fileURLToPath(import.meta.url), '../..');

/** Build output, caches and dependencies: not part of the tree the docs describe. */
const SKIPPED = new Set(['.git', 'node_modules', 'dist', '.cache', 'coverage']);

/** Every file under the repository root, relative, with `/` separators. */
function repoFiles(dir = ''): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      return SKIPPED.has(entry.name) ? [] : repoFiles(path);
    }
    return entry.isFile() ? [path] : [];
  });
}

/** Files as given, and every folder holding one as `folder/` (git keeps no empty folder). */
function treeOf(files: readonly string[]): ReadonlySet<string> {
  const paths = new Set<string>();
  for (const file of files) {
    paths.add(file);
    const parts = file.split('/');
    for (let depth = 1; depth < parts.length; depth += 1) {
      paths.add(`${parts.slice(0, depth).join('/')}/`);
    }
  }
  return paths;
}

interface Entry {
  readonly path: string;
  readonly description: string;
}

/** An entry line is indented at most this far; deeper lines continue a description. */
const MAX_ENTRY_INDENT = 12;
const ENTRY = /^(\S+)(?: {2,}(.*))?$/;
const FILE_NAME = /^[\w.-]+\.(?:ts|mjs|js|css|html|json|md|sh)$/;

function sectionOf(page: string, heading: string): string | undefined {
  const start = page.indexOf(`\n## ${heading}\n`);
  if (start < 0) {
    return undefined;
  }
  const end = page.indexOf('\n## ', start + 1);
  return page.slice(start, end < 0 ? undefined : end);
}

function fencedBlocks(text: string): string[] {
  return [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
}

/** The tree: a top-level entry is a path from the root; a nested one joins its parent folder. */
function treeEntries(block: string, problems: string[]): Entry[] {
  const parents: { indent: number; path: string }[] = [];
  const entries: Entry[] = [];
  for (const line of block.split('\n')) {
    const indent = line.length - line.trimStart().length;
    if (line.trim() === '' || indent > MAX_ENTRY_INDENT) {
      const last = entries.pop();
      if (last !== undefined) {
        entries.push({ ...last, description: `${last.description} ${line.trim()}` });
      }
      continue;
    }
    const match = ENTRY.exec(line.trimStart());
    const name = match?.[1];
    if (name === undefined || indent % 2 !== 0) {
      problems.push(`cannot read the tree line "${line}"`);
      continue;
    }
    while ((parents.at(-1)?.indent ?? -1) >= indent) {
      parents.pop();
    }
    const path = `${parents.at(-1)?.path ?? ''}${name}`;
    if (name.endsWith('/')) {
      parents.push({ indent, path });
    }
    entries.push({ path, description: match?.[2] ?? '' });
  }
  return entries;
}

/** Words of prose or code, with what cannot be part of a path taken as a separator. */
function words(text: string): string[] {
  return text
    .split(/[^\w./*<>$~:@-]+/)
    .map((word) => word.replace(/[.:]+$/, ''))
    .filter((word) => word !== '');
}

function first(path: string): string {
  return path.split('/')[0] ?? '';
}

/** Whether a path a page names exists, from the root or (as the flows write them) from `src/`. */
function exists(path: string, paths: ReadonlySet<string>): boolean {
  return [path, `src/${path}`].some((p) => paths.has(p) || paths.has(`${p}/`));
}

/**
 * What is wrong with a page's tree (the first fenced block under `## <heading>`) and with the
 * paths it names anywhere, against the repository's `paths` (from treeOf). Pure.
 */
function layoutProblems(page: string, heading: string, paths: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const block = fencedBlocks(sectionOf(page, heading) ?? '')[0];
  if (block === undefined) {
    return [`no tree in a fenced block under "## ${heading}"`];
  }
  const entries = treeEntries(block, problems);
  for (const { path, description } of entries) {
    if (!paths.has(path)) {
      problems.push(`names ${path}, which does not exist`);
      continue;
    }
    const folder = path.endsWith('/') ? path : path.slice(0, path.lastIndexOf('/') + 1);
    for (const name of words(description).filter((word) => FILE_NAME.test(word))) {
      if (!paths.has(`${folder}${name}`)) {
        problems.push(`says ${path} holds ${name}, which is not in ${folder}`);
      }
    }
  }
  const described = new Set(entries.map((entry) => entry.path));
  for (const folder of [...paths].filter((p) => p.startsWith('src/') && p.endsWith('/'))) {
    if (!described.has(folder)) {
      problems.push(`does not describe ${folder}`);
    }
  }
  // Paths in code anywhere on the page (inline, other blocks, the tree's descriptions), when they
  // start where the repository or src/ does; a pattern (`*`, `<area>`) or something outside
  // (`../`, `~`, `$VAR`, `dist/`) is not a path here.
  const roots = new Set([...paths].flatMap((p) => [p, p.replace(/^src\//, '')].map(first)));
  const code = [
    ...[...page.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? ''),
    ...fencedBlocks(page).filter((other) => other !== block),
    ...entries.map((entry) => entry.description),
  ];
  const names = new Set([...paths].map((p) => p.slice(p.lastIndexOf('/') + 1)));
  for (const word of words(code.join('\n'))) {
    const plain = /^[\w.-]+(?:\/[\w.-]+)*\/?$/.test(word) && word.includes('/');
    if (plain && roots.has(first(word)) && !exists(word, paths)) {
      problems.push(`names ${word}, which does not exist`);
    }
    // A file named alone (the flows' `wait-for-place.ts`): some file must be called that.
    if (FILE_NAME.test(word) && !word.startsWith('.') && !names.has(word)) {
      problems.push(`names ${word}, which no file is called`);
    }
  }
  return [...new Set(problems)];
}

/** Words that date a page: a map that says what is to come is stale the day it lands. */
const STATUS_WORDS =
  /\b(?:not yet|yet to|later|still|for now|today|soon|currently|at the moment|eventually(?!\()|TODO|planned|will be)\b/i;

/** The lines of a page that speak of work to come (status words). Pure. */
function statusLines(page: string): string[] {
  return page
    .split('\n')
    .flatMap((line, index) =>
      STATUS_WORDS.test(line) ? [`line ${index + 1}: ${line.trim()}`] : [],
    );
}

const PAGES = [
  { file: 'CONTRIBUTING.md', heading: 'Layout' },
  { file: 'ARCHITECTURE.md', heading: 'Map' },
] as const;

describe('the layout pages', () => {
  const paths = treeOf(repoFiles());

  for (const { file, heading } of PAGES) {
    it(`${file} names only what exists and describes every folder of src/`, () => {
      expect(layoutProblems(readFileSync(join(ROOT, file), 'utf8'), heading, paths)).toEqual([]);
    });
  }
});

describe('ARCHITECTURE.md', () => {
  it('describes the code as it is, with no word of work to come', () => {
    expect(statusLines(readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8'))).toEqual([]);
  });
});

describe('statusLines', () => {
  it('flags "not yet", "later", "still" and their kin, not eventually() or a longer word', () => {
    const page = [
      'scheduling/ (not yet wired into the gateway)',
      'the waker, later folded in',
      'route.ts still decides',
      'test/support: eventually(), stillborn, latterly',
    ].join('\n');
    expect(statusLines(page)).toEqual([
      'line 1: scheduling/ (not yet wired into the gateway)',
      'line 2: the waker, later folded in',
      'line 3: route.ts still decides',
    ]);
  });
});

describe('layoutProblems', () => {
  const paths = treeOf(['src/cli.ts', 'src/a/x.ts', 'src/a/deep/y.ts', 'src/b/z.ts', 'docs/d.md']);
  const page = (tree: string, prose = ''): string =>
    `# Page\n\n## Map\n\n${prose}\n\n\`\`\`\n${tree}\n\`\`\`\n\n## Next\n`;
  const good = [
    'src/',
    '  cli.ts        the entry',
    '  a/            holds x.ts',
    '                and more (deep/y.ts)',
    '    deep/       y.ts',
    '  b/            z.ts',
    'docs/           d.md',
  ].join('\n');

  it('finds nothing wrong with a true tree and true paths', () => {
    expect(
      layoutProblems(page(good, 'See `a/x.ts`, `src/b/` and `docs/d.md`.'), 'Map', paths),
    ).toEqual([]);
  });

  it('refuses a renamed folder: it does not exist, and the real one is not described', () => {
    expect(layoutProblems(page(good.replace('  a/ ', '  aa/')), 'Map', paths)).toEqual([
      'names src/aa/, which does not exist',
      'names src/aa/deep/, which does not exist',
      'does not describe src/a/',
      'does not describe src/a/deep/',
    ]);
  });

  it('refuses a folder left out, a file its folder does not hold, and a path that is gone', () => {
    const tree = good.replace('  b/            z.ts', '').replace('holds x.ts', 'holds w.ts');
    expect(
      layoutProblems(page(tree, 'See `a/gone.ts`, `gone.ts` and `HTTP/1.1`.'), 'Map', paths),
    ).toEqual([
      'says src/a/ holds w.ts, which is not in src/a/',
      'does not describe src/b/',
      'names a/gone.ts, which does not exist',
      'names gone.ts, which no file is called',
      'names w.ts, which no file is called',
    ]);
  });

  it('refuses a page without the tree, and a line it cannot read', () => {
    expect(layoutProblems('# Page\n\n## Map\n\nprose only\n', 'Map', paths)).toEqual([
      'no tree in a fenced block under "## Map"',
    ]);
    expect(layoutProblems(page(`${good}\n src/odd/`), 'Map', paths)).toEqual([
      'cannot read the tree line " src/odd/"',
    ]);
  });
});
