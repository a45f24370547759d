/**
 * `npm run bench` checks every section's tools before the first section starts (prerequisites.ts):
 * each missing tool is named once with the sections that need it and how to install it.
 */
import { describe, expect, it } from 'vitest';

import { missingTools, type Tool } from './prerequisites.ts';

const ALL = new Set([1, 2, 3, 4]);
const SECTIONS = [
  'startup',
  'sampler',
  'gateway',
  'soak',
  'wake',
  'fleet',
  'scheduler',
  'local',
  'keepcache',
];
const without =
  (...absent: Tool[]) =>
  (tool: Tool): boolean =>
    !absent.includes(tool);

describe('bench prerequisites', () => {
  it('names each missing tool with every section that needs it', () => {
    expect(missingTools(SECTIONS, ALL, without('llama-server', 'wrk'))).toEqual([
      'llama-server, needed by sampler, gateway, soak, wake, scheduler, local, keepcache: run scripts/install-test-engine.sh (see CONTRIBUTING.md)',
      'wrk, needed by gateway, local: install wrk (apt-get install wrk)',
    ]);
  });

  it('asks only for what the sections run are about to run', () => {
    const none = without('llama-server', 'nginx', 'wrk');
    expect(missingTools(['startup', 'fleet'], ALL, none)).toEqual([]);
    expect(missingTools(['scheduler'], new Set([1, 2]), none)).toEqual([]);
    expect(missingTools(['scheduler'], new Set([1, 4]), none)).toHaveLength(1);
    expect(missingTools(SECTIONS, ALL, without())).toEqual([]);
  });
});
