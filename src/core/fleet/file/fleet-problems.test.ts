/**
 * The fleet file's problems: all reported at once, each naming the file, and never a throw on
 * arbitrary text or values (fast-check, fixed numRuns).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  lines,
  NO_VARIABLES,
  problems,
} from '../../../../test/support/project-files/fleet-text.ts';
import { parseFleet } from './fleet-file.ts';

describe('problems', () => {
  it('reports every problem in the file at once', () => {
    const found = problems(
      lines(
        'prefer: fastest',
        'wake: maybe',
        'concurrency: {total: 0}',
        'gateway: {url: gw:4000}',
        'nodes:',
        '  - host: nameless',
        '  - {name: a, host: h}',
        '  - {name: a, host: h}',
        '  - {name: b}',
        '  - {name: c, host: h, port: 0}',
        '  - {name: d, kind: remote}',
        '  - {name: e, kind: docker}',
        '  - {name: f, host: h, wake: later}',
        '  - {name: g, host: h, tokenEnv: UNSET_G}',
      ),
    );
    for (const expected of [
      'unknown preference "fastest"',
      'unknown wake policy "maybe"',
      'concurrency.total',
      'the gateway url "gw:4000" has no scheme',
      'node 1 has no name',
      'duplicate node name "a"',
      'node "b" has no host',
      'node "c": port',
      'node "d" is a remote environment, so its engine key must be set',
      'node "e" has kind "docker"',
      'node "f": unknown wake policy "later"',
      'UNSET_G is not set (node "g"',
    ]) {
      expect(found.some((message) => message.includes(expected))).toBe(true);
    }
    expect(found).toHaveLength(12);
  });

  it.each([
    ['unbalanced YAML', 'nodes: [\n  - {name: a', 'line 2'],
    ['a duplicate key', lines('nodes: []', 'nodes: []'), 'keep only one of the two entries'],
    [
      'a node key indented too little',
      lines('nodes:', '  - name: a', '   host: h'),
      'line 3 ("   host: h"): not valid YAML: sequence item without - indicator: indent with spaces',
    ],
    [
      'a node key indented too far',
      lines('nodes:', '  - name: a', '      host: h'),
      'line 2 ("  - name: a"): not valid YAML: nested mappings are not allowed in compact mappings: indent with spaces',
    ],
    ['a tab', lines('nodes:', '\t- name: a'), 'tabs are not allowed as indentation'],
  ])('refuses %s as not YAML, ending with what to fix', (_name, text, expected) => {
    const [message, ...rest] = problems(text);
    expect(rest).toEqual([]);
    expect(message).toMatch(/^fleet\.yaml line \d+ .*: not valid YAML: /);
    expect(message).toContain(expected);
    expect(message).not.toMatch(/[:\n]$/);
  });

  it.each([
    ['plain text', 'just some text'],
    ['a list', '- a\n- b\n'],
    ['an empty file', ''],
  ])('refuses %s: not a mapping', (_name, text) => {
    expect(problems(text)).toEqual(['fleet.yaml: expected a mapping with nodes:']);
  });

  it('carries the fleet error code', () => {
    const result = parseFleet('nodes: []', 'fleet.yaml', NO_VARIABLES);
    expect(result.ok ? undefined : result.code).toBe('ERR_FLEET');
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(() => parseFleet(text, 'fleet.yaml', NO_VARIABLES)).not.toThrow();
      }),
      { numRuns: 200 },
    );
  });

  it('never throws on arbitrary values in any field', () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      fc.property(
        fc.record(
          {
            prefer: value,
            wake: value,
            concurrency: value,
            gateway: value,
            queue: value,
            affinity: value,
            scaleOut: value,
            idleStop: value,
            groups: value,
            nodes: fc.oneof(
              value,
              fc.array(
                fc.record(
                  {
                    name: fc.oneof(fc.string(), value),
                    host: value,
                    port: value,
                    kind: value,
                    engine: value,
                    tags: value,
                    file: value,
                    wake: value,
                    tokenEnv: value,
                    engineTokenEnv: value,
                    scaleOut: value,
                    idleStop: value,
                    keepWarm: value,
                    group: fc.oneof(fc.constantFrom('gpu', 'gpu0'), value),
                    wakeCommand: value,
                    sleepCommand: value,
                  },
                  { requiredKeys: [] },
                ),
                { maxLength: 4 },
              ),
            ),
          },
          { requiredKeys: [] },
        ),
        (document) => {
          // JSON is YAML, so every record is a fleet file of some shape.
          const text = JSON.stringify(document);
          expect(() => parseFleet(text, 'fleet.yaml', NO_VARIABLES)).not.toThrow();
        },
      ),
      { numRuns: 200 },
    );
  });
});
