/**
 * The imported fleet file (docs/design.md D26, D27): one local node per carried model,
 * `ttl`/`globalTTL` as idleStop, preloads as keepWarm, llama-swap's swapping as groups of one
 * running member. A file without scheduling keys is loaded through the project's fleet-file parser;
 * the scheduling keys are checked as the YAML data written.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import { asLocal } from '../../test/support/project-files/fleet-node.ts';
import { parsed as parsedFleet } from '../../test/support/project-files/fleet-text.ts';
import {
  fileText,
  importProblems,
  lossesOf,
  plan,
  yamlLines,
} from '../../test/support/project-files/import-plan.ts';
import { durationOf } from './fleet-text.ts';

const model = (id: string, ...extra: string[]): string[] => [
  `  ${id}:`,
  `    cmd: llama-server -m /models/${id}.gguf --port \${PORT}`,
  ...extra.map((line) => `    ${line}`),
];

/** What every import writes: llama-swap's address on loopback, the token in .env beside it. */
const GATEWAY = { url: 'http://127.0.0.1:8080', tokenEnv: 'GATEWAY_TOKEN' };

const fleetOf = (text: string): unknown => parse(fileText(plan(text), 'fleet.yaml'));

describe('the fleet file', () => {
  it('loads through the fleet-file parser: a local node per model, its file beside it', () => {
    const result = plan(
      yamlLines(
        'models:',
        ...model('qwen'),
        ...model('embed/nomic'),
        'groups:',
        '  together: {swap: false, members: [qwen, embed/nomic]}',
      ),
    );
    const fleet = parsedFleet(fileText(result, 'fleet.yaml'));
    expect(fleet.nodes.map((node) => asLocal(node))).toEqual([
      expect.objectContaining({ name: 'qwen', kind: 'local', file: 'qwen/Svcfile' }),
      expect.objectContaining({ name: 'embed-nomic', kind: 'local', file: 'embed-nomic/Svcfile' }),
    ]);
    expect(result.files.map((file) => file.path)).toEqual([
      'fleet.yaml',
      '.env',
      'qwen/Svcfile',
      'embed-nomic/Svcfile',
    ]);
  });

  it('writes ttl as the node idleStop and globalTTL as the file-wide one', () => {
    expect(
      fleetOf(
        yamlLines(
          'globalTTL: 3600',
          'models:',
          ...model('a', 'ttl: 60'),
          ...model('b', 'ttl: 90'),
          ...model('c', 'ttl: 0'),
          ...model('d', 'ttl: -1'),
          'groups:',
          '  all: {swap: false, members: [a, b, c, d]}',
        ),
      ),
    ).toEqual({
      gateway: GATEWAY,
      idleStop: '1h',
      nodes: [
        { name: 'a', kind: 'local', file: 'a/Svcfile', idleStop: '1m' },
        { name: 'b', kind: 'local', file: 'b/Svcfile', idleStop: '90s' },
        { name: 'c', kind: 'local', file: 'c/Svcfile', idleStop: 'off' },
        { name: 'd', kind: 'local', file: 'd/Svcfile' },
      ],
    });
  });

  it("carries concurrencyLimit as the node's slots, 0 (llama-swap's default) as none", () => {
    const result = plan(
      yamlLines(
        'models:',
        ...model('capped', 'concurrencyLimit: 2'),
        ...model('open', 'concurrencyLimit: 0'),
      ),
    );
    const fleet = parsedFleet(fileText(result, 'fleet.yaml'));
    expect(fleet.nodes[0]).toMatchObject({ name: 'capped', slots: 2 });
    expect(fleet.nodes[1]).not.toHaveProperty('slots');
    expect(lossesOf(result).join('\n')).not.toContain('concurrencyLimit');
    expect(
      importProblems(yamlLines('models:', ...model('bad', 'concurrencyLimit: -1'))),
    ).toContainEqual(expect.stringContaining('models.bad.concurrencyLimit'));
  });

  it('keeps a preloaded model warm, saying its ttl no longer stops it', () => {
    const text = yamlLines(
      'models:',
      ...model('a', 'ttl: 300'),
      '  box:',
      '    cmd: docker run x',
      'hooks:',
      '  on_startup:',
      '    preload: [a, box, nothing]',
    );
    expect(fleetOf(text)).toEqual({
      gateway: GATEWAY,
      nodes: [{ name: 'a', kind: 'local', file: 'a/Svcfile', keepWarm: 'on' }],
    });
    expect(fileText(plan(text), 'fleet.yaml')).toContain('keepWarm: on\n');
    expect(lossesOf(plan(text), 'a')).toEqual([
      'ttl 300: it is preloaded, so keepWarm: on, which svc never idle-stops (llama-swap unloaded it after its ttl)',
    ]);
    expect(lossesOf(plan(text))).toEqual([
      'hooks.on_startup.preload box: that model is not carried over (see it below)',
      'hooks.on_startup.preload nothing: no model has that id',
    ]);
  });

  it.each([
    [1, '1s'],
    [59, '59s'],
    [120, '2m'],
    [7200, '2h'],
    [5400, '90m'],
  ])('writes %i seconds as %s', (seconds, text) => {
    expect(durationOf(seconds)).toBe(text);
  });
});

describe('swapping', () => {
  it('runs the models no group names one at a time, as llama-swap does', () => {
    expect(fleetOf(yamlLines('models:', ...model('a'), ...model('b')))).toMatchObject({
      groups: { default: { max: 1, minResidency: '0s' } },
      nodes: [
        { name: 'a', group: 'default' },
        { name: 'b', group: 'default' },
      ],
    });
  });

  it('makes a swap group a group of one, carrying exclusive (llama-swap: on by default)', () => {
    const text = yamlLines(
      'models:',
      ...model('a'),
      ...model('b'),
      ...model('c'),
      ...model('d'),
      'groups:',
      '  default: {swap: true, members: [a, b]}',
      '  pair: {swap: false, exclusive: false, members: [c]}',
    );
    expect(fleetOf(text)).toEqual({
      gateway: GATEWAY,
      groups: {
        default: { max: 1, minResidency: '0s', exclusive: true },
        // llama-swap's group for the models no group names: it swaps, exclusively.
        'default-2': { max: 1, minResidency: '0s', exclusive: true },
      },
      nodes: [
        { name: 'a', kind: 'local', file: 'a/Svcfile', group: 'default' },
        { name: 'b', kind: 'local', file: 'b/Svcfile', group: 'default' },
        { name: 'c', kind: 'local', file: 'c/Svcfile' },
        { name: 'd', kind: 'local', file: 'd/Svcfile', group: 'default-2' },
      ],
    });
    expect(lossesOf(plan(text))).toEqual([]);
  });

  it('carries persistent, and a swap: false group as large as its members', () => {
    const text = yamlLines(
      'models:',
      ...model('a'),
      ...model('b'),
      ...model('c'),
      'groups:',
      '  big: {members: [a]}',
      '  forever: {swap: false, exclusive: false, persistent: true, members: [b, c]}',
    );
    expect(fleetOf(text)).toMatchObject({
      groups: {
        big: { max: 1, minResidency: '0s', exclusive: true },
        forever: { max: 2, minResidency: '0s', persistent: true },
      },
    });
    expect(lossesOf(plan(text))).toEqual([]);
  });

  it('reduces a matrix to one model at a time, saying so', () => {
    const text = yamlLines(
      'models:',
      ...model('a'),
      ...model('b'),
      'matrix:',
      '  vars: {a: a, b: b}',
      '  sets: {both: "a & b"}',
    );
    expect(fleetOf(text)).toMatchObject({ groups: { default: { max: 1, minResidency: '0s' } } });
    expect(lossesOf(plan(text))[0]).toMatch(/^matrix: svc runs one of these models at a time/);
  });

  it.each([
    [
      ['  g: {members: [a]}', '  h: {members: [a]}'],
      'config.yaml line 6 (groups.h.members): "a" is already a member of group "g"',
    ],
    [
      ['  g: {swap: maybe, members: [a]}'],
      'config.yaml line 5 (groups.g.swap): expected true or false',
    ],
  ])('refuses a group naming the line: %#', (groups, expected) => {
    expect(importProblems(yamlLines('models:', ...model('a'), 'groups:', ...groups))).toEqual([
      expected,
    ]);
  });

  it('imports a group whose members (or a preload) name no model, listing each as not carried', () => {
    // llama-swap's own example: top-level groups whose members it does not define.
    const result = plan(
      yamlLines(
        'models:',
        ...model('a'),
        ...model('b'),
        'hooks:',
        '  on_startup:',
        '    preload: [a, llama]',
        'groups:',
        '  group1:',
        '    swap: true',
        '    exclusive: false',
        '    members: [llama, a, b]',
        '  forever:',
        '    persistent: true',
        '    swapp: false',
        '    members: [qwen-unlisted]',
      ),
    );
    expect(parse(fileText(result, 'fleet.yaml'))).toMatchObject({
      groups: { group1: { max: 1 } },
    });
    expect(lossesOf(result)).toEqual([
      'hooks.on_startup.preload llama: no model has that id',
      'groups.group1.members llama: no model has that id',
      'groups.forever.swapp: not a llama-swap key: did you mean swap?',
      'groups.forever.members qwen-unlisted: no model has that id',
    ]);
  });
});
