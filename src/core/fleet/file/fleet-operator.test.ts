/**
 * `gateway.operatorTokenEnv` (docs/design.md D28): resolved like a node's token, required unless
 * read leniently (docs/design.md D24), a key the strict table knows (docs/design.md D20), and
 * enough on its own to make a gateway section that names no url.
 */
import { describe, expect, it } from 'vitest';

import { type FleetSources, parseFleet } from './fleet-file.ts';
import { operatorOf } from './fleet-operator.ts';

const text = (...gatewayLines: string[]): string =>
  [
    'gateway:',
    ...gatewayLines.map((line) => `  ${line}`),
    'nodes:',
    '  - {name: a, host: h}',
    '',
  ].join('\n');

const parse = (fleet: string, sources: Partial<FleetSources> = {}) =>
  parseFleet(fleet, 'fleet.yaml', { env: {}, dotenv: {}, ...sources });

describe('operatorOf', () => {
  const resolve = (values: Record<string, string>, lenient = false) => {
    const problems: string[] = [];
    const sources = {
      lookup: (name: string) => values[name],
      lenient,
      problem: (message: string) => problems.push(message),
    };
    return { sources, problems };
  };

  it('is absent when the key is', () => {
    const { sources, problems } = resolve({});
    expect(operatorOf(undefined, sources)).toBeUndefined();
    expect(problems).toEqual([]);
  });

  it("keeps the variable's name and value", () => {
    const { sources, problems } = resolve({ OPS: 'op-secret' });
    expect(operatorOf('OPS', sources)).toEqual({ tokenEnv: 'OPS', token: 'op-secret' });
    expect(problems).toEqual([]);
  });

  it('names the key of a variable set nowhere, never a value', () => {
    const { sources, problems } = resolve({});
    expect(operatorOf('OPS', sources)).toEqual({ tokenEnv: 'OPS' });
    expect(problems).toEqual([
      'OPS is not set (gateway.operatorTokenEnv): export it, or put it in the .env beside the fleet file',
    ]);
  });

  it('leaves an unset variable to the caller when read leniently (docs/design.md D24)', () => {
    const { sources, problems } = resolve({}, true);
    expect(operatorOf('OPS', sources)).toEqual({ tokenEnv: 'OPS' });
    expect(problems).toEqual([]);
  });

  it.each([[''], [5], [['OPS']]])('refuses %j as a variable name', (value) => {
    const { sources, problems } = resolve({});
    expect(operatorOf(value, sources)).toBeUndefined();
    expect(problems).toEqual(['gateway.operatorTokenEnv must name an environment variable']);
  });
});

describe('gateway.operatorTokenEnv in a fleet file', () => {
  it('reads the token from the environment first, then the .env', () => {
    const fleet = text('url: http://gw:4000', 'operatorTokenEnv: OPS');
    const fromEnv = parse(fleet, { env: { OPS: 'from-env' }, dotenv: { OPS: 'from-file' } });
    expect(fromEnv.ok && fromEnv.value.operator).toEqual({ tokenEnv: 'OPS', token: 'from-env' });
    const fromFile = parse(fleet, { env: { OPS: '' }, dotenv: { OPS: 'from-file' } });
    expect(fromFile.ok && fromFile.value.operator).toEqual({ tokenEnv: 'OPS', token: 'from-file' });
  });

  it('refuses the fleet when the variable is set nowhere, naming the key', () => {
    const result = parse(text('url: http://gw:4000', 'operatorTokenEnv: OPS'));
    expect(result.ok ? [] : result.problems).toEqual([
      'fleet.yaml: OPS is not set (gateway.operatorTokenEnv): export it, or put it in the .env beside the fleet file',
    ]);
  });

  it('reads leniently for commands that need only the gateway section (docs/design.md D24)', () => {
    const result = parse(text('url: http://gw:4000', 'operatorTokenEnv: OPS'), {
      nodeTokens: 'lenient',
    });
    expect(result.ok).toBe(true);
    expect(result.ok && result.value.operator).toEqual({ tokenEnv: 'OPS' });
    expect(result.ok && result.value.gateway?.url).toBe('http://gw:4000');
  });

  it('needs no url beside it: the url is for agents, the operator token for the gateway', () => {
    const result = parse(text('operatorTokenEnv: OPS'), { env: { OPS: 'x' } });
    expect(result.ok).toBe(true);
    expect(result.ok && result.value.gateway).toBeUndefined();
    expect(result.ok && result.value.operator?.tokenEnv).toBe('OPS');
  });

  it('is absent when the section names none', () => {
    const result = parse(text('url: http://gw:4000'));
    expect(result.ok && result.value.operator).toBeUndefined();
  });

  it('refuses a misspelt key, naming the closest (docs/design.md D20)', () => {
    const result = parse(text('url: http://gw:4000', 'operatorTokenENV: OPS'));
    expect(result.ok ? [] : result.problems).toEqual([
      'fleet.yaml: unknown key "operatorTokenENV" in gateway (line 3): did you mean "operatorTokenEnv"?',
    ]);
  });
});
