/**
 * The fleet file's top-level scheduling settings (docs/design.md D25 `queue`, `affinity`,
 * `scaleOut`; docs/design.md D26 `idleStop`, `groups`) and the check that a node's `group` is
 * declared.
 */
import { describe, expect, it } from 'vitest';

import { lines, parsed, problems } from '../../../../test/support/project-files/fleet-text.ts';

const NODE = ['nodes:', '  - {name: a, host: h}'];

describe('top-level scheduling settings', () => {
  it('reads queue, affinity, scaleOut, idleStop and groups as written', () => {
    const fleet = parsed(
      lines(
        'queue:',
        '  max: 0',
        '  timeout: 90s',
        '  models:',
        '    "qwen:Q4_K_M": {max: 8}',
        '    big: {timeout: 10m}',
        'affinity: off',
        'scaleOut: on',
        'idleStop: 15m',
        'groups:',
        '  gpu: {max: 1, minResidency: 2m}',
        '  pair: {max: 2, minResidency: 0s}',
        '  plain: {}',
        ...NODE,
      ),
    );
    expect(fleet.queue).toEqual({
      max: 0,
      timeoutMs: 90_000,
      models: new Map([
        ['qwen:Q4_K_M', { max: 8 }],
        ['big', { timeoutMs: 600_000 }],
      ]),
    });
    expect(fleet.affinity).toBe(false);
    expect(fleet.scaleOut).toBe(true);
    expect(fleet.idleStopMs).toBe(900_000);
    expect(fleet.groups).toEqual(
      new Map([
        ['gpu', { max: 1, minResidencyMs: 120_000 }],
        ['pair', { max: 2, minResidencyMs: 0 }],
        ['plain', {}],
      ]),
    );
  });

  it('leaves every key absent when the file sets none', () => {
    const fleet = parsed(lines(...NODE));
    for (const key of ['queue', 'affinity', 'scaleOut', 'idleStopMs', 'groups'] as const) {
      expect(fleet[key]).toBeUndefined();
    }
  });

  it('keeps idleStop: off and affinity: on', () => {
    const fleet = parsed(lines('idleStop: off', 'affinity: on', ...NODE));
    expect(fleet.idleStopMs).toBe('off');
    expect(fleet.affinity).toBe(true);
  });

  it('refuses bad values, each naming its place and key, all at once', () => {
    expect(
      problems(
        lines(
          'queue:',
          '  max: -1',
          '  timeout: -30s',
          '  models:',
          '    m: {max: 1.5, timeout: 30}',
          '    n: 4',
          'affinity: maybe',
          'scaleOut: true',
          'idleStop: 5 minutes',
          'groups:',
          '  gpu: {max: 0, minResidency: never}',
          '  one: 1',
          ...NODE,
        ),
      ),
    ).toEqual([
      'fleet.yaml: queue.max must be a whole number of 0 or more, not -1',
      'fleet.yaml: queue.timeout must be a duration such as 30s, 5m or 1h, not "-30s"',
      'fleet.yaml: queue.models["m"].max must be a whole number of 0 or more, not 1.5',
      'fleet.yaml: queue.models["m"].timeout must be a duration such as 30s, 5m or 1h, not 30 (give its unit, as in 30s)',
      'fleet.yaml: queue.models["n"] must be a mapping with max and/or timeout',
      'fleet.yaml: affinity must be "on" or "off", not "maybe"',
      'fleet.yaml: scaleOut must be "on" or "off", not true',
      'fleet.yaml: idleStop must be a duration such as 30s, 5m or 1h, or "off", not "5 minutes"',
      'fleet.yaml: groups["gpu"].max must be a whole number of 1 or more, not 0',
      'fleet.yaml: groups["gpu"].minResidency must be a duration such as 30s, 5m or 1h, not "never"',
      'fleet.yaml: groups["one"] must be a mapping with max, minResidency, exclusive and/or persistent',
    ]);
  });

  it.each([
    ['queue: 5', 'queue must be a mapping with max, timeout and/or models'],
    ['queue: {models: [a]}', 'queue.models must map model names to their own max and/or timeout'],
    [
      'groups: [gpu]',
      'groups must map group names to their max, minResidency, exclusive and/or persistent',
    ],
  ])('refuses %s', (line, expected) => {
    expect(problems(lines(line, ...NODE))).toEqual([`fleet.yaml: ${expected}`]);
  });
});

describe('exclusive and persistent groups (docs/design.md D31)', () => {
  it('reads both flags as written, and leaves them out when unset', () => {
    const fleet = parsed(
      lines(
        'groups:',
        '  big: {max: 1, exclusive: true}',
        '  embed: {persistent: true, exclusive: false}',
        '  plain: {}',
        ...NODE,
      ),
    );
    expect(fleet.groups).toEqual(
      new Map([
        ['big', { max: 1, exclusive: true }],
        ['embed', { persistent: true, exclusive: false }],
        ['plain', {}],
      ]),
    );
  });

  it('refuses a flag that is not true or false, naming the group and key', () => {
    expect(
      problems(lines('groups:', '  big: {exclusive: on, persistent: "yes"}', ...NODE)),
    ).toEqual([
      'fleet.yaml: groups["big"].exclusive must be true or false, not "on"',
      'fleet.yaml: groups["big"].persistent must be true or false, not "yes"',
    ]);
  });

  it('names a misspelt group key and the closest one', () => {
    expect(problems(lines('groups:', '  big: {exclusiv: true}', ...NODE))).toEqual([
      'fleet.yaml: unknown key "exclusiv" in groups "big" (line 2): did you mean "exclusive"?',
    ]);
  });
});

describe('group membership', () => {
  it('accepts a group with more members than its max (that is what a group is for)', () => {
    const fleet = parsed(
      lines(
        'groups: {gpu: {max: 1}}',
        'nodes:',
        ...['a', 'b', 'c'].map((name) => `  - {name: ${name}, host: h, group: gpu, keepWarm: on}`),
      ),
    );
    expect(fleet.nodes.map((node) => node.group)).toEqual(['gpu', 'gpu', 'gpu']);
  });

  it('refuses a node naming an undeclared group, naming the node, the key and the closest group', () => {
    expect(
      problems(
        lines(
          'groups: {gpu: {}, cpu-pool: {}}',
          'nodes:',
          '  - {name: a, host: h, group: gpu0}',
          '  - {name: b, host: h, group: elsewhere}',
        ),
      ),
    ).toEqual([
      'fleet.yaml: node "a": group "gpu0" is not declared under groups: did you mean "gpu"?',
      'fleet.yaml: node "b": group "elsewhere" is not declared under groups: declared groups: gpu, cpu-pool',
    ]);
  });

  it('says how to declare a group when the file declares none', () => {
    expect(problems(lines('nodes:', '  - {name: a, host: h, group: gpu}'))).toEqual([
      'fleet.yaml: node "a": group "gpu" is not declared under groups: declare it at the top level, as in groups: {gpu: {max: 1}}',
    ]);
  });
});

describe('unknown scheduling keys (docs/design.md D20)', () => {
  it('names a misspelt key under queue, queue.models, groups and a node', () => {
    expect(
      problems(
        lines(
          'queue:',
          '  maxx: 3',
          '  models:',
          '    m: {timout: 5s}',
          'groups:',
          '  gpu: {max: 1, minResidence: 1m}',
          'idlestop: 5m',
          'nodes:',
          '  - {name: a, host: h, group: gpu, keepwarm: on}',
        ),
      ),
    ).toEqual([
      'fleet.yaml: unknown key "maxx" in queue (line 2): did you mean "max"?',
      'fleet.yaml: unknown key "timout" in queue models "m" (line 4): did you mean "timeout"?',
      'fleet.yaml: unknown key "minResidence" in groups "gpu" (line 6): did you mean "minResidency"?',
      'fleet.yaml: unknown key "idlestop" (line 7): did you mean "idleStop"?',
      'fleet.yaml: unknown key "keepwarm" in node "a" (line 9): did you mean "keepWarm"?',
    ]);
  });
});
