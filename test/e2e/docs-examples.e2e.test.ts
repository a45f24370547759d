/**
 * Runs every example in docs/svcfile.md: each ```Svcfile block (with the ```ini title=NAME blocks
 * after it) is written to a temp directory and `svc serve --dry-run` must print exactly the
 * command of the ```console block that follows. Docs that drift from the code fail here.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../support/engines.ts';
import { runSvc, tempDir } from '../support/svc.ts';

interface Example {
  svcfile: string;
  files: Record<string, string>;
  command: string;
  expected: string;
}

function examples(markdown: string): Example[] {
  const blocks = [...markdown.matchAll(/```([^\n]*)\n([\s\S]*?)```/g)].map((match) => ({
    info: (match[1] ?? '').trim(),
    body: match[2] ?? '',
  }));
  const found: Example[] = [];
  let current: Example | undefined;
  for (const block of blocks) {
    if (block.info === 'Svcfile') {
      current = { svcfile: block.body, files: {}, command: '', expected: '' };
    } else if (current !== undefined && block.info.startsWith('ini title=')) {
      current.files[block.info.slice('ini title='.length)] = block.body;
    } else if (current !== undefined && block.info === 'console') {
      const [prompt = '', ...output] = block.body.trimEnd().split('\n');
      current.command = prompt.replace(/^\$ /, '');
      current.expected = output.join('\n');
      found.push(current);
      current = undefined;
    }
  }
  return found;
}

const page = readFileSync(join(REPO_ROOT, 'docs', 'svcfile.md'), 'utf8');
const cases = examples(page);

describe('docs/svcfile.md examples', () => {
  it('has examples for every engine and for presets', () => {
    const all = cases.map((example) => example.svcfile).join('\n');
    for (const provider of ['llamacpp', 'vllm', 'omlx', 'mtplx']) {
      expect(all).toContain(`PROVIDER ${provider}`);
    }
    expect(cases.some((example) => Object.keys(example.files).length > 0)).toBe(true);
  });

  it.each(cases.map((example, index) => [index + 1, example] as const))(
    'example %i prints the documented command',
    async (_index, example) => {
      const dir = await tempDir();
      await writeFile(join(dir, 'Svcfile'), example.svcfile);
      for (const [name, body] of Object.entries(example.files)) {
        await writeFile(join(dir, name), body);
      }
      expect(example.command).toBe('svc serve --dry-run');
      const result = await runSvc(['serve', '--dry-run'], { cwd: dir });
      expect(result.stderr).not.toMatch(/^svc: /m);
      expect(result).toMatchObject({ status: 0, stdout: `${example.expected}\n` });
    },
  );
});
