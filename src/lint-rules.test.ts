/**
 * The layout's lint rules are as strong as ARCHITECTURE.md's words: each probe below is code the
 * rules must refuse (a pure folder reaching I/O, a clock or chance; a driver built outside the
 * by-kind table; a benchmark or script reached from where it must not be), linted with the
 * project's own eslint.config.js at a path where it would sit. The rules are syntactic, so the
 * type-aware ones are switched off here to keep the run short (and the cycle check, which reads
 * the linted file from disk: architecture.test.ts covers cycles).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(fileURLToPath(import.meta.url), '../..');
const scheduling = 'src/core/fleet/scheduling/probe.ts';

interface Probe {
  readonly name: string;
  readonly path: string;
  readonly code: string;
  /** The rule that must refuse it. */
  readonly rule: string;
}

const probes: readonly Probe[] = [
  {
    name: 'a pure folder importing core/fs',
    path: scheduling,
    code: "import { writeFileAtomic } from '../../fs/atomic-write.ts';\nexport const f = writeFileAtomic;\n",
    rule: 'import/no-restricted-paths',
  },
  {
    name: 'a pure folder importing core/project/load',
    path: scheduling,
    code: "import * as load from '../../project/load.ts';\nexport const f = load;\n",
    rule: 'import/no-restricted-paths',
  },
  {
    name: 'a pure folder importing core/fleet/load',
    path: 'src/core/fleet/routing/probe.ts',
    code: "import * as load from '../load/load-fleet.ts';\nexport const f = load;\n",
    rule: 'import/no-restricted-paths',
  },
  {
    name: 'Math.random in a pure folder',
    path: scheduling,
    code: 'export const pick = (): number => Math.random();\n',
    rule: 'no-restricted-properties',
  },
  {
    name: 'globalThis.Date.now in a pure folder',
    path: scheduling,
    code: 'export const now = (): number => globalThis.Date.now();\n',
    rule: 'no-restricted-globals',
  },
  {
    name: 'setImmediate in a pure folder',
    path: 'src/core/fleet/file/probe.ts',
    code: 'export const later = (f: () => void): void => {\n  setImmediate(f);\n};\n',
    rule: 'no-restricted-globals',
  },
  {
    name: 'node:dns in a pure folder',
    path: scheduling,
    code: "import { lookup } from 'node:dns';\nexport const f = lookup;\n",
    rule: 'no-restricted-imports',
  },
  {
    name: 'node:crypto randomness in a pure folder',
    path: scheduling,
    code: "import { randomBytes } from 'node:crypto';\nexport const f = randomBytes;\n",
    rule: 'no-restricted-imports',
  },
  {
    name: 'a dynamic import in a pure folder',
    path: scheduling,
    code: "export const f = (): Promise<unknown> => import('node:fs');\n",
    rule: 'no-restricted-syntax',
  },
  {
    name: 'a concrete driver imported by a file that is only named by-kind.ts',
    path: 'src/gateway/by-kind.ts',
    code: "import { daemonDriver } from '../core/fleet/drivers/daemon-driver.ts';\nexport const f = daemonDriver;\n",
    rule: 'no-restricted-imports',
  },
  {
    name: 'a benchmark reaching into a command',
    path: 'bench/probe.ts',
    code: "import * as app from '../src/gateway/http/app.ts';\nexport const f = app;\n",
    rule: 'import/no-restricted-paths',
  },
  {
    name: 'a script reaching into a command',
    path: 'scripts/probe.ts',
    code: "import * as app from '../src/gateway/http/app.ts';\nexport const f = app;\n",
    rule: 'import/no-restricted-paths',
  },
  {
    name: 'a test importing a benchmark',
    path: 'test/support/probe.ts',
    code: "import * as bench from '../../bench/support.ts';\nexport const f = bench;\n",
    rule: 'import/no-restricted-paths',
  },
  {
    name: 'product code importing test support',
    path: 'src/core/probe.ts',
    code: "import * as net from '../../test/support/http/net.ts';\nexport const f = net;\n",
    rule: 'import/no-restricted-paths',
  },
];

let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({
    cwd: ROOT,
    overrideConfig: [
      { files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked },
      // The cycle check reads the linted file from disk, and a probe has no file.
      { files: ['**/*.ts'], rules: { 'import/no-cycle': 'off' } },
    ],
  });
});

async function rulesBroken(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
}

describe('the lint rules refuse', () => {
  it.each(probes)('$name', async ({ path, code, rule }) => {
    expect(await rulesBroken(path, code)).toContain(rule);
  });
});

describe('the lint rules let through', () => {
  it('the by-kind table building every driver, at its own path', async () => {
    const code = [
      "import { daemonDriver } from './daemon-driver.ts';",
      "import { remoteDriver } from './remote-driver.ts';",
      'export const drivers = [daemonDriver, remoteDriver];',
      '',
    ].join('\n');
    expect(await rulesBroken('src/core/fleet/drivers/by-kind.ts', code)).toEqual([]);
  });

  it('a pure folder using its allowed imports and a hash', async () => {
    const code = [
      "import { createHash } from 'node:crypto';",
      '',
      "import { parseDuration } from '../../duration.ts';",
      "import type { NodeSnapshot } from '../state/node-snapshot.ts';",
      '',
      'export const f = (s: NodeSnapshot): unknown => [createHash, parseDuration, s];',
      '',
    ].join('\n');
    expect(await rulesBroken(scheduling, code)).toEqual([]);
  });
});
