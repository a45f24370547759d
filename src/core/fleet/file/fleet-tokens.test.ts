/**
 * The fleet file's token variables: resolved from the environment, then the .env beside it;
 * strict or lenient (docs/design.md D24) when one is set nowhere.
 */
import { describe, expect, it } from 'vitest';

import { asDaemon } from '../../../../test/support/project-files/fleet-node.ts';
import {
  oneNode,
  parsed,
  problems,
  withVariables,
} from '../../../../test/support/project-files/fleet-text.ts';
import { parseFleet } from './fleet-file.ts';

describe('token variables', () => {
  const text = oneNode('tokenEnv: NODE_TOKEN', 'engineTokenEnv: ENGINE_KEY');

  it('resolves tokenEnv and engineTokenEnv from the environment', () => {
    const result = withVariables(text, { NODE_TOKEN: 'tok', ENGINE_KEY: 'key' });
    expect(result.ok && result.value.nodes[0]).toMatchObject({
      tokenEnv: 'NODE_TOKEN',
      token: 'tok',
      engineTokenEnv: 'ENGINE_KEY',
      engineKey: 'key',
    });
  });

  it('resolves them from the .env when the environment lacks them', () => {
    const result = withVariables(text, {}, { NODE_TOKEN: 'file-tok', ENGINE_KEY: 'file-key' });
    expect(result.ok && result.value.nodes[0]).toMatchObject({
      token: 'file-tok',
      engineKey: 'file-key',
    });
  });

  it('prefers a non-empty environment value over the .env', () => {
    const result = withVariables(
      text,
      { NODE_TOKEN: 'env-tok', ENGINE_KEY: 'env-key' },
      { NODE_TOKEN: 'file-tok', ENGINE_KEY: 'file-key' },
    );
    expect(result.ok && result.value.nodes[0]).toMatchObject({
      token: 'env-tok',
      engineKey: 'env-key',
    });
  });

  it('treats an exported empty value as unset, so the .env fills it', () => {
    const result = withVariables(
      text,
      { NODE_TOKEN: '', ENGINE_KEY: '' },
      { NODE_TOKEN: 'file-tok', ENGINE_KEY: 'file-key' },
    );
    expect(result.ok && result.value.nodes[0]).toMatchObject({
      token: 'file-tok',
      engineKey: 'file-key',
    });
  });

  it('refuses a variable set nowhere, naming the variable and the node', () => {
    const result = withVariables(text, { NODE_TOKEN: '' }, { ENGINE_KEY: '' });
    expect(result.ok).toBe(false);
    const found = result.ok ? [] : result.problems;
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/NODE_TOKEN is not set \(node "a", tokenEnv\)/);
    expect(found[1]).toMatch(/ENGINE_KEY is not set \(node "a", engineTokenEnv\)/);
  });

  it('in lenient mode keeps the names of unset variables and no values (docs/design.md D24)', () => {
    const result = parseFleet(text, 'fleet.yaml', {
      env: {},
      dotenv: {},
      nodeTokens: 'lenient',
    });
    expect(result.ok).toBe(true);
    const node = asDaemon(result.ok ? result.value.nodes[0] : undefined);
    expect(node).toMatchObject({ tokenEnv: 'NODE_TOKEN', engineTokenEnv: 'ENGINE_KEY' });
    expect(node.token).toBeUndefined();
    expect(node.engineKey).toBeUndefined();
  });

  it('refuses a tokenEnv that is not a variable name', () => {
    expect(problems(oneNode('tokenEnv: 5'))).toEqual([
      'fleet.yaml: node "a": tokenEnv must name an environment variable',
    ]);
  });

  it('refuses a literal token: key instead of ignoring it (docs/design.md D20)', () => {
    expect(problems(oneNode('token: abc'))).toEqual([
      'fleet.yaml: unknown key "token" in node "a" (line 4): did you mean "tokenEnv"?',
    ]);
  });

  it('leaves a node without tokenEnv unauthenticated', () => {
    const node = asDaemon(parsed(oneNode()).nodes[0]);
    expect(node.token).toBeUndefined();
    expect(node.tokenEnv).toBeUndefined();
    expect(node.engineKey).toBeUndefined();
  });
});
