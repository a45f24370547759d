/**
 * A node's own scheduling settings (docs/design.md D25 `scaleOut`; docs/design.md D26 `idleStop`,
 * `keepWarm`, `group`, `wakeCommand`, `sleepCommand`): read as written on every node kind, each bad
 * value refused naming the node and the key.
 */
import { describe, expect, it } from 'vitest';

import { asRemote } from '../../../../test/support/project-files/fleet-node.ts';
import {
  lines,
  oneNode,
  parsed,
  problems,
  withVariables,
} from '../../../../test/support/project-files/fleet-text.ts';

const GROUPED = ['groups:', '  gpu: {max: 1}'];

describe('node scheduling settings', () => {
  it('reads every key as written', () => {
    const fleet = parsed(
      lines(
        ...GROUPED,
        'nodes:',
        '  - name: a',
        '    host: h',
        '    scaleOut: on',
        '    idleStop: 10m',
        '    keepWarm: off',
        '    group: gpu',
        '    wakeCommand: [wakeonlan, "aa:bb:cc:dd:ee:ff"]',
        '    sleepCommand: [ssh, box, sudo, systemctl, suspend]',
      ),
    );
    expect(fleet.nodes[0]).toMatchObject({
      scaleOut: true,
      idleStopMs: 600_000,
      keepWarm: false,
      group: 'gpu',
      wakeCommand: ['wakeonlan', 'aa:bb:cc:dd:ee:ff'],
      sleepCommand: ['ssh', 'box', 'sudo', 'systemctl', 'suspend'],
    });
  });

  it('leaves every key absent when the node sets none (the defaults are the scheduler’s)', () => {
    const node = parsed(oneNode()).nodes[0] as unknown as Readonly<Record<string, unknown>>;
    for (const key of [
      'scaleOut',
      'idleStopMs',
      'keepWarm',
      'group',
      'wakeCommand',
      'sleepCommand',
    ]) {
      expect(Object.hasOwn(node, key)).toBe(false);
    }
  });

  it('keeps a node’s idleStop: off, so it can override a fleet-wide duration', () => {
    const fleet = parsed(
      lines(
        'idleStop: 5m',
        'nodes:',
        '  - {name: a, host: h, idleStop: off}',
        '  - {name: b, host: h}',
      ),
    );
    expect(fleet.idleStopMs).toBe(300_000);
    expect(fleet.nodes.map((node) => node.idleStopMs)).toEqual(['off', undefined]);
  });

  it('reads the same keys on a remote node', () => {
    const fleet = withVariables(
      lines(
        ...GROUPED,
        'nodes:',
        '  - {name: cloud-a, kind: remote, engineTokenEnv: K, scaleOut: on, idleStop: 1h, group: gpu}',
      ),
      { K: 'key' },
    );
    expect(fleet.ok ? undefined : fleet.problems).toBeUndefined();
    if (fleet.ok) {
      expect(asRemote(fleet.value.nodes[0])).toMatchObject({
        scaleOut: true,
        idleStopMs: 3_600_000,
        group: 'gpu',
      });
    }
  });

  it.each([
    ['scaleOut: yes', 'node "a": scaleOut must be "on" or "off", not "yes"'],
    ['keepWarm: true', 'node "a": keepWarm must be "on" or "off", not true'],
    [
      'idleStop: -5m',
      'node "a": idleStop must be a duration such as 30s, 5m or 1h, or "off", not "-5m"',
    ],
    [
      'idleStop: 10',
      'node "a": idleStop must be a duration such as 30s, 5m or 1h, or "off", not 10 (give its unit, as in 10s)',
    ],
    [
      'idleStop: 0s',
      'node "a": idleStop must be a duration such as 30s, 5m or 1h, or "off", not "0s"',
    ],
    [
      'idleStop: soon',
      'node "a": idleStop must be a duration such as 30s, 5m or 1h, or "off", not "soon"',
    ],
    ['group: 3', 'node "a": group must name a group declared under groups, not 3'],
  ])('refuses %s, naming the node and the key', (line, expected) => {
    expect(problems(oneNode(line))).toEqual([`fleet.yaml: ${expected}`]);
  });

  it.each(['wakeCommand', 'sleepCommand'])('refuses a %s that is not an argv list', (key) => {
    const refused = (value: string): string[] => problems(oneNode(`${key}: ${value}`));
    expect(refused('"wakeonlan aa:bb:cc:dd:ee:ff"')).toEqual([
      `fleet.yaml: node "a": ${key} must be a non-empty argv list of strings, as in [wakeonlan, "aa:bb:cc:dd:ee:ff"], not a shell string: it runs without a shell`,
    ]);
    expect(refused('[]')[0]).toContain(`node "a": ${key} must be a non-empty argv list`);
    expect(refused('{program: wol}')[0]).toContain('not {"program":"wol"}');
    expect(refused('[wol, 5]')).toEqual([
      `fleet.yaml: node "a": ${key} must be an argv list of strings: item 2 is 5 (quote it)`,
    ]);
    expect(refused('["", x]')).toEqual([
      `fleet.yaml: node "a": ${key} must name a program as its first item, not ""`,
    ]);
  });

  it('keeps empty later arguments: only the program must be named', () => {
    expect(parsed(oneNode('wakeCommand: [prog, ""]')).nodes[0]?.wakeCommand).toEqual(['prog', '']);
  });
});
