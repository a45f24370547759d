/**
 * Strict fleet files through the built CLI (docs/design.md D20): a misspelt key, or a bad
 * scheduling setting (docs/design.md D25, D26), stops both the gateway and `svc fleet` before
 * anything starts, naming the key, its node and (for a misspelling) its line and the closest key.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../support/prerequisites/engines.ts';
import { runToEnd } from '../support/processes/processes.ts';
import { tempDir } from '../support/processes/temp-dir.ts';

const SVC = join(REPO_ROOT, 'dist', 'cli.js');

const FLEET = [
  'nodes:',
  '  - name: gpu0',
  '    host: 127.0.0.1',
  '    port: 1',
  '  - name: gpu1',
  '    host: 127.0.0.1',
  '    tokenENV: GPU1_TOKEN',
  '    wakee: off',
  '',
].join('\n');

describe('a fleet file with a misspelt key', () => {
  it('is refused by svc fleet and svc gateway, every key named with a suggestion', async () => {
    const dir = await tempDir();
    const fleet = join(dir, 'fleet.yaml');
    await writeFile(fleet, FLEET);
    const env = { ...process.env, SVC_LOG_LEVEL: '', GPU1_TOKEN: 'secret-token-value' };
    const expected = [
      `svc: ${fleet}: unknown key "tokenENV" in node "gpu1" (line 7): did you mean "tokenEnv"?`,
      `${fleet}: unknown key "wakee" in node "gpu1" (line 8): did you mean "wake"?`,
      '',
    ].join('\n');
    for (const args of [
      ['fleet', 'status', '-f', fleet],
      ['fleet', 'stop', '-f', fleet, 'gpu1'],
      ['gateway', '-f', fleet, '--listen', '127.0.0.1:0'],
    ]) {
      const result = await runToEnd(SVC, args, { env });
      expect(result).toEqual({ status: 2, stdout: '', stderr: expected });
    }
  });
});

const BAD_SCHEDULING = [
  'groups:',
  '  gpu: {max: 1}',
  'nodes:',
  '  - name: gpu0',
  '    host: 127.0.0.1',
  '    port: 1',
  '    group: gpu0',
  '  - name: gpu1',
  '    host: 127.0.0.1',
  '    port: 1',
  '    idleStop: -5m',
  '    wakeCommand: "wakeonlan aa:bb:cc:dd:ee:ff"',
  '',
].join('\n');

describe('a fleet file with bad scheduling settings', () => {
  it('is refused by svc fleet and svc gateway, naming each node and key', async () => {
    const dir = await tempDir();
    const fleet = join(dir, 'fleet.yaml');
    await writeFile(fleet, BAD_SCHEDULING);
    const env = { ...process.env, SVC_LOG_LEVEL: '' };
    const expected = [
      `svc: ${fleet}: node "gpu1": idleStop must be a duration such as 30s, 5m or 1h, or "off", not "-5m"`,
      `${fleet}: node "gpu1": wakeCommand must be a non-empty argv list of strings, as in [wakeonlan, "aa:bb:cc:dd:ee:ff"], not a shell string: it runs without a shell`,
      `${fleet}: node "gpu0": group "gpu0" is not declared under groups: did you mean "gpu"?`,
      '',
    ].join('\n');
    for (const args of [
      ['fleet', 'status', '-f', fleet],
      ['gateway', '-f', fleet, '--listen', '127.0.0.1:0'],
    ]) {
      const result = await runToEnd(SVC, args, { env });
      expect(result).toEqual({ status: 2, stdout: '', stderr: expected });
    }
  });
});
