/**
 * The Svcfile of a command engine that fails on cue (test/fixtures/command-server.mjs --fail,
 * docs/design.md D30 `failed`): a chat request gets a 500 before any body, a stream is cut after
 * its first chunk. Its alias is its name.
 */
import { join } from 'node:path';

import { REPO_ROOT } from '../prerequisites/engines.ts';

const SERVER = join(REPO_ROOT, 'test', 'fixtures', 'command-server.mjs');

export function failingEngineSvcfile(name: string): string {
  return [
    'PROVIDER command',
    `ALIAS ${name}`,
    `COMMAND node ${SERVER} --port \${PORT} --name ${name} --fail`,
    'HEALTH /health',
    '',
  ].join('\n');
}
