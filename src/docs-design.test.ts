/**
 * The decisions live in the repository (docs/design.md): every decision a file cites as
 * `docs/design.md D7` (or a list, `docs/design.md D25, D26`) and every section it cites by title
 * (`docs/design.md "Names"`) is a heading there; every `spec §N` citation has its section in that
 * page's contract summary; and no file points outside the repository, at the old guide or at the
 * shared spec, so a clone can follow every citation.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const ROOT = join(fileURLToPath(import.meta.url), '../..');
const DESIGN = 'docs/design.md';
const THIS_FILE = relative(ROOT, fileURLToPath(import.meta.url));

/** Where citations live: the code, its tests, benches, scripts, the docs and the root pages. */
const FOLDERS = ['src', 'test', 'bench', 'scripts', 'docs'];
const ROOT_FILES = [
  'ARCHITECTURE.md',
  'CONTRIBUTING.md',
  'README.md',
  'eslint.config.js',
  'vitest.config.ts',
  'package.json',
];
const TEXT = /\.(?:ts|mjs|js|cjs|sh|md|json|yaml|yml|html|css)$/;

function textFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      return textFiles(path);
    }
    return entry.isFile() && TEXT.test(entry.name) ? [path] : [];
  });
}

/** The decision numbers and section titles docs/design.md has as `## ` headings. Pure. */
function designHeadings(page: string): { decisions: number[]; titles: Set<string> } {
  const headings = [...page.matchAll(/^## (.+)$/gm)].map((match) => (match[1] ?? '').trim());
  const decisions = headings.flatMap((heading) => {
    const number = /^D(\d+)\. \S/.exec(heading)?.[1];
    return number === undefined ? [] : [Number(number)];
  });
  return { decisions, titles: new Set(headings) };
}

/** A decision number, with what a comment may put before it: spaces, a comment's `*` or `//`. */
const SEPARATOR = String.raw`(?:[\s*/]|,|\band\b|&)+`;
const DECISIONS = new RegExp(String.raw`docs/design\.md((?:${SEPARATOR}D\d+)+)`, 'g');
const TITLE = /docs\/design\.md[\s*/]+"([^"\n]+)"/g;
const SPEC = /\bspec §(\d+)/g;

/** What a text cites: decision numbers, section titles of docs/design.md, spec sections. Pure. */
function citations(text: string): {
  decisions: number[];
  titles: string[];
  specSections: number[];
} {
  return {
    decisions: [...text.matchAll(DECISIONS)].flatMap((match) =>
      [...(match[1] ?? '').matchAll(/D(\d+)/g)].map((number) => Number(number[1])),
    ),
    titles: [...text.matchAll(TITLE)].map((match) => match[1] ?? ''),
    specSections: [...text.matchAll(SPEC)].map((match) => Number(match[1])),
  };
}

/**
 * Pointers outside the repository: the old guide's citations and files, the shared spec's path,
 * any path into the shared folder beside the checkout. Built from pieces so that this file does
 * not flag itself. Pure.
 */
const OLD_GUIDE = ['GUI', 'DE'].join('');
const SPEC_FILE = ['SPEC', 'md'].join('.');
const SHARED = ['sha', 'red'].join('');
const OUTSIDE = [
  new RegExp(`\\b${OLD_GUIDE}\\b`),
  new RegExp(`\\b${SPEC_FILE.replace('.', '\\.')}\\b`),
  new RegExp(`\\.\\./${SHARED}/`),
  new RegExp(`/${SHARED}/(?:spec|design|reference)\\b`),
];

function outsidePointers(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) =>
      OUTSIDE.some((pattern) => pattern.test(line)) ? [`line ${index + 1}: ${line.trim()}`] : [],
    );
}

/** The spec sections the contract summary covers: its `**§N` bullets. Pure. */
function summarisedSections(page: string): Set<number> {
  const start = page.indexOf('\n## The contract\n');
  const end = page.indexOf('\n## ', start + 1);
  const section = start < 0 ? '' : page.slice(start, end < 0 ? undefined : end);
  return new Set([...section.matchAll(/\*\*§(\d+) /g)].map((match) => Number(match[1])));
}

describe('docs/design.md', () => {
  const page = readFileSync(join(ROOT, DESIGN), 'utf8');
  const { decisions, titles } = designHeadings(page);
  const files = [...FOLDERS.flatMap((dir) => textFiles(dir)), ...ROOT_FILES].filter(
    (file) => file !== THIS_FILE,
  );

  it('numbers its decisions D1, D2, … in order, each once', () => {
    expect(decisions.length).toBeGreaterThanOrEqual(33);
    expect(decisions).toEqual(decisions.map((_, index) => index + 1));
  });

  it('has every decision and section the repository cites, and every spec section', () => {
    const summarised = summarisedSections(page);
    const missing = files.flatMap((file) => {
      const cited = citations(readFileSync(join(ROOT, file), 'utf8'));
      return [
        ...cited.decisions.filter((n) => !decisions.includes(n)).map((n) => `${file}: D${n}`),
        ...cited.titles.filter((t) => !titles.has(t)).map((t) => `${file}: "${t}"`),
        ...cited.specSections.filter((n) => !summarised.has(n)).map((n) => `${file}: spec §${n}`),
      ];
    });
    expect([...new Set(missing)]).toEqual([]);
  });

  it('is what the repository cites: no file points outside it', () => {
    const outside = files.flatMap((file) =>
      outsidePointers(readFileSync(join(ROOT, file), 'utf8')).map((hit) => `${file} ${hit}`),
    );
    expect(outside).toEqual([]);
  });
});

describe('citations', () => {
  it('reads one decision, lists, a line-broken comment and a possessive', () => {
    const text = [
      '// docs/design.md D7: crashed',
      '/** (docs/design.md D25, D26) and docs/design.md D13 and D19 */',
      ' * the key file (docs/design.md',
      " * D27), and docs/design.md D10's grace",
      '// docs/design.md D25 capacity and queue; D26 groups',
    ].join('\n');
    expect(citations(text).decisions).toEqual([7, 25, 26, 13, 19, 27, 10, 25]);
  });

  it('reads section titles and spec sections, and nothing from other pages', () => {
    const text = 'docs/design.md "Names"; spec §4.2 rule 5, spec §1; docs/gateway.md D3';
    expect(citations(text)).toEqual({ decisions: [], titles: ['Names'], specSections: [4, 1] });
  });
});

describe('designHeadings and summarisedSections', () => {
  const page = [
    '# Design',
    '## The contract',
    '- **§1 What.** x',
    '- **§4 Endpoints.** y',
    '## Names',
    '## D1. Version is reported',
    '## D2. Models',
    '## D3',
  ].join('\n');

  it('finds numbered decisions with a title, every heading, and the summarised sections', () => {
    expect(designHeadings(page).decisions).toEqual([1, 2]);
    expect(designHeadings(page).titles.has('Names')).toBe(true);
    expect([...summarisedSections(page)]).toEqual([1, 4]);
  });
});

describe('outsidePointers', () => {
  it('flags the old guide, the shared spec and ../shared paths, and nothing else', () => {
    const lines = [
      `// ${OLD_GUIDE} D7`,
      `see ../${SHARED}/spec/${SPEC_FILE}`,
      `the ${OLD_GUIDE}.md decisions`,
      '// docs/design.md D7, spec §3, a guide to the fleet, ../other/p.ini',
    ];
    expect(outsidePointers(lines.join('\n'))).toEqual([
      `line 1: ${lines[0]}`,
      `line 2: ${lines[1]}`,
      `line 3: ${lines[2]}`,
    ]);
  });
});
