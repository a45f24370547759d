/**
 * README's word on the tests against package.json: how long `npm test` takes, and each
 * end-to-end file `npm run test:fast` runs named, so a change to that list shows up here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const ROOT = join(fileURLToPath(import.meta.url), '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SCRIPTS = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

describe("README's tests paragraph", () => {
  it('says about how long npm test takes on a 2-core machine', () => {
    const after = README.slice(README.indexOf('\nnpm test\n'));
    expect(after).toMatch(/^\nnpm test\n```\n\nIt takes about \d+ minutes on a 2-core machine/);
  });

  it('names every end-to-end file npm run test:fast runs', () => {
    const files = [...(SCRIPTS['test:fast'] ?? '').matchAll(/test\/e2e\/([\w-]+)\.e2e\.test\.ts/g)];
    expect(files.length).toBeGreaterThan(0);
    const paragraph = README.slice(README.indexOf('`npm run test:fast`'));
    for (const [, name = ''] of files) {
      expect(paragraph).toContain(`\`${name}\``);
    }
  });
});
