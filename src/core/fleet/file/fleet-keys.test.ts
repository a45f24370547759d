/**
 * Strict fleet files (docs/design.md D20): an unknown key at any level is refused naming the key,
 * its node, its line and the closest known key, every one at once.
 */
import { describe, expect, it } from 'vitest';

import { asDaemon } from '../../../../test/support/project-files/fleet-node.ts';
import { parseHelpers } from '../../../../test/support/results/parse-result.ts';
import { parseFleet } from './fleet-file.ts';

const { parsed, problems } = parseHelpers(
  (text, source) => parseFleet(text, source, { env: { GPU1_TOKEN: 't' }, dotenv: {} }),
  'the fleet file',
  'fleet.yaml',
);

const lines = (...parts: string[]): string => `${parts.join('\n')}\n`;

describe('unknown fleet-file keys', () => {
  it('names a misspelt node key, its node, its line and the closest key', () => {
    const text = lines(
      'prefer: idle',
      'nodes:',
      '  - name: gpu0',
      '    host: h0',
      '  - name: gpu1',
      '    host: h1',
      '    tokenENV: GPU1_TOKEN',
    );
    expect(problems(text)).toEqual([
      'fleet.yaml: unknown key "tokenENV" in node "gpu1" (line 7): did you mean "tokenEnv"?',
    ]);
  });

  it('finds unknown keys at every level, all at once, beside other problems', () => {
    const text = lines(
      'wakee: off',
      'concurrency:',
      '  totl: 2',
      'gateway:',
      '  url: http://127.0.0.1:4000',
      '  tokenenv: GW',
      'nodes:',
      '  - name: a',
      '    host: h',
      '    fille: a/Svcfile',
      '    engine:',
      '      hots: 127.0.0.1',
      '    tags:',
      '      anything: goes',
      '  - host: h2',
      '    sneaky: 1',
      '  - name: c',
      '    host: h3',
      '    wake: later',
    );
    expect(problems(text)).toEqual([
      'fleet.yaml: unknown key "wakee" (line 1): did you mean "wake"?',
      'fleet.yaml: unknown key "totl" in concurrency (line 3): did you mean "total"?',
      'fleet.yaml: unknown key "tokenenv" in gateway (line 6): did you mean "tokenEnv"?',
      'fleet.yaml: unknown key "fille" in node "a" (line 10): did you mean "file"?',
      'fleet.yaml: unknown key "hots" in node "a" engine (line 12): did you mean "host"?',
      'fleet.yaml: unknown key "sneaky" in node 2 (line 16): known keys here: name, kind, host, port, tokenEnv, engineTokenEnv, engine, file, tags, wake, instance-type, scaleOut, idleStop, keepWarm, group, wakeCommand, sleepCommand, keepCache, keepCacheMax, aliases, unlisted, params, url, apiKeyEnv, models, slots, timeout',
      'fleet.yaml: node 2 has no name',
      'fleet.yaml: node "c": unknown wake policy "later": use "on" or "off"',
    ]);
  });

  it('accepts every known key and any tag or concurrency-tag name', () => {
    const fleet = parsed(
      lines(
        'prefer: active',
        'wake: off',
        'concurrency:',
        '  total: 2',
        '  tags:',
        '    gpu=big: 1',
        'gateway:',
        '  url: http://127.0.0.1:4000',
        '  tokenEnv: GW',
        '  name: home',
        '  cors: [http://127.0.0.1:3000]',
        'nodes:',
        '  - name: a',
        '    kind: daemon',
        '    host: h',
        '    port: 4243',
        '    tokenEnv: GPU1_TOKEN',
        '    engineTokenEnv: GPU1_TOKEN',
        '    engine: {host: 127.0.0.1, port: 8080, path: /v1}',
        '    file: a/Svcfile',
        '    tags: {gpu: big, anything: goes}',
        '    wake: on',
      ),
    );
    expect(asDaemon(fleet.nodes[0]).tokenEnv).toBe('GPU1_TOKEN');
    expect(fleet.cors).toEqual(['http://127.0.0.1:3000']);
  });

  it('refuses a misspelt gateway cors key, naming the known one', () => {
    const text = lines(
      'gateway:',
      '  url: http://127.0.0.1:4000',
      '  cros: [http://127.0.0.1:3000]',
      'nodes:',
      '  - name: a',
      '    host: h',
    );
    expect(problems(text)).toEqual([
      'fleet.yaml: unknown key "cros" in gateway (line 3): did you mean "cors"?',
    ]);
  });

  it("refuses llama-swap's words, naming the svc key to use (docs/design.md D31)", () => {
    const text = lines(
      'models:',
      '  a: {cmd: llama-server}',
      'nodes:',
      '  - {name: a, kind: local, file: a.svc, ttl: 60, preload: true}',
      'groups:',
      '  g: {swap: true, members: [a]}',
    );
    expect(problems(text)).toEqual([
      'fleet.yaml: unknown key "models" (line 1): that is llama-swap\'s word; svc\'s is nodes, one per model, each naming its Svcfile (svc import llama-swap writes them)',
      'fleet.yaml: unknown key "ttl" in node "a" (line 4): that is llama-swap\'s word; svc\'s is idleStop (a duration such as 10m)',
      'fleet.yaml: unknown key "preload" in node "a" (line 4): that is llama-swap\'s word; svc\'s is keepWarm: on on the node',
      'fleet.yaml: unknown key "swap" in groups "g" (line 6): that is llama-swap\'s word; svc\'s is max: 1 in the group',
      'fleet.yaml: unknown key "members" in groups "g" (line 6): that is llama-swap\'s word; svc\'s is group: <name> on each node',
    ]);
  });
});
