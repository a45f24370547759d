/**
 * `callers` (docs/design.md D29): strict parsing naming the caller and the key, exactly one token
 * source, hashes computed once at load, and no token value in any problem or result.
 */
import { describe, expect, it } from 'vitest';

import { modelMatcher } from './caller-models.ts';
import { tokenHash } from './fleet-callers.ts';
import { type FleetSources, parseFleet } from './fleet-file.ts';

const SECRET = 'ci-secret-token-value';
const HASH = tokenHash('alice-token');

const fleetWith = (...callerLines: string[]): string =>
  ['nodes:', '  - {name: a, host: h}', 'callers:', ...callerLines.map((l) => `  ${l}`), ''].join(
    '\n',
  );

const parse = (text: string, sources: Partial<FleetSources> = {}) =>
  parseFleet(text, 'fleet.yaml', { env: { CI_TOKEN: SECRET }, dotenv: {}, ...sources });

const problemsOf = (text: string, sources: Partial<FleetSources> = {}): string[] => {
  const result = parse(text, sources);
  if (result.ok) {
    throw new Error('expected problems');
  }
  return result.problems;
};

describe('callers in the fleet file', () => {
  it('is absent without the key, so everything stays as before', () => {
    const result = parse(fleetWith().replace('callers:\n', ''));
    expect(result.ok && result.value.callers).toBeUndefined();
  });

  it('reads every key, hashing a tokenEnv token once and keeping no token', () => {
    const result = parse(
      fleetWith(
        `- {name: alice, tokenSha256: "${HASH.toUpperCase()}"}`,
        '- {name: ci, tokenEnv: CI_TOKEN, models: ["qwen-*"], wake: off, upstreams: off, concurrency: 2, priority: low}',
      ),
    );
    expect(result.ok).toBe(true);
    const callers = result.ok ? result.value.callers : undefined;
    expect(callers).toEqual([
      { name: 'alice', tokenSha256: HASH, wake: true, upstreams: true, priority: 'normal' },
      {
        name: 'ci',
        tokenEnv: 'CI_TOKEN',
        tokenSha256: tokenHash(SECRET),
        models: ['qwen-*'],
        wake: false,
        upstreams: false,
        concurrency: 2,
        priority: 'low',
      },
    ]);
    expect(JSON.stringify(callers)).not.toContain(SECRET);
  });

  it('refuses an unknown key naming the caller and the closest key', () => {
    expect(problemsOf(fleetWith(`- {name: alice, tokenSha256: "${HASH}", wkae: off}`))).toEqual([
      'fleet.yaml: unknown key "wkae" in caller "alice" (line 4): did you mean "wake"?',
    ]);
  });

  it.each([
    ['neither', '- {name: bob}', 'not neither'],
    ['both', `- {name: bob, tokenEnv: CI_TOKEN, tokenSha256: "${HASH}"}`, 'not both'],
  ])('refuses %s token source', (_label, line, tail) => {
    const [problem] = problemsOf(fleetWith(line));
    expect(problem).toContain('caller "bob": give exactly one of tokenEnv');
    expect(problem).toContain(tail);
  });

  it('refuses duplicate names and duplicate tokens, never showing a token', () => {
    const problems = problemsOf(
      fleetWith(
        '- {name: ci, tokenEnv: CI_TOKEN}',
        `- {name: ci, tokenSha256: "${HASH}"}`,
        `- {name: bot, tokenSha256: "${tokenHash(SECRET)}"}`,
      ),
    );
    expect(problems).toEqual([
      'fleet.yaml: duplicate caller name "ci"',
      'fleet.yaml: caller "bot": tokenEnv/tokenSha256 gives the same token as caller "ci"',
    ]);
    expect(problems.join('\n')).not.toContain(SECRET);
  });

  it.each([
    ['- {name: Alice, tokenEnv: CI_TOKEN}', 'caller 1: name must match [a-z0-9][a-z0-9-]*'],
    ['- {name: gateway, tokenEnv: CI_TOKEN}', `caller "gateway": the name is the gateway's own`],
    ['- {name: a, tokenSha256: abc}', 'caller "a": tokenSha256 must be 64 hex digits'],
    ['- {name: a, tokenEnv: UNSET_VAR}', 'UNSET_VAR is not set (caller "a", tokenEnv)'],
    ['- {name: a, tokenEnv: CI_TOKEN, wake: maybe}', 'caller "a": wake must be on or off'],
    ['- {name: a, tokenEnv: CI_TOKEN, upstreams: 3}', 'caller "a": upstreams must be on or off'],
    ['- {name: a, tokenEnv: CI_TOKEN, concurrency: 0}', 'caller "a": concurrency must be'],
    ['- {name: a, tokenEnv: CI_TOKEN, priority: urgent}', 'caller "a": priority must be high'],
    ['- {name: a, tokenEnv: CI_TOKEN, models: [1]}', 'caller "a": models must be a list'],
  ])('refuses %s', (line, expected) => {
    const problems = problemsOf(fleetWith(line));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(expected);
  });

  it('leaves an unset tokenEnv absent when read leniently (docs/design.md D24)', () => {
    const result = parse(fleetWith('- {name: a, tokenEnv: UNSET_VAR}'), { nodeTokens: 'lenient' });
    expect(result.ok && result.value.callers).toEqual([
      { name: 'a', tokenEnv: 'UNSET_VAR', wake: true, upstreams: true, priority: 'normal' },
    ]);
  });
});

describe('modelMatcher', () => {
  it('allows every model without patterns, none with an empty list', () => {
    expect(modelMatcher(undefined)('anything')).toBe(true);
    expect(modelMatcher([])('anything')).toBe(false);
  });

  it('matches names exactly and * as any run of characters, anchored', () => {
    const allowed = modelMatcher(['tiny', 'qwen-*', '*:Q4', 'a.b']);
    expect(['tiny', 'qwen-', 'qwen-7b/x', 'org/repo:Q4', 'a.b'].map(allowed)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['tiny2', 'xqwen-7b', 'org/repo:Q4x', 'aXb', 'qwen'].map(allowed)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('treats regular-expression characters literally', () => {
    expect(modelMatcher(['m(1)+*'])('m(1)+x')).toBe(true);
    expect(modelMatcher(['m(1)+*'])('m11x')).toBe(false);
    expect(modelMatcher(['*'])('')).toBe(true);
  });
});
