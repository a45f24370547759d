/**
 * A node command's environment (docs/design.md D26): every token and key variable the fleet file
 * names, `SVC_API_TOKEN` and any variable holding one of their values are left out; `SVC_NODE` is
 * set.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode, remoteNode } from '../../../test/support/project-files/fleet-node.ts';
import type { Fleet } from '../../core/fleet/file/fleet-file.ts';
import { commandEnvironment, fleetSecrets } from './node-command-env.ts';

const fleet: Fleet = {
  path: '/fleet/fleet.yaml',
  nodes: [
    daemonNode('gpu1', {
      tokenEnv: 'GPU1_TOKEN',
      token: 'daemon-token',
      engineTokenEnv: 'GPU1_KEY',
      engineKey: 'engine-key',
    }),
    daemonNode('gpu2'),
    remoteNode('cloud', { engineKey: 'cloud-key' }),
  ],
  apiKeyEnv: 'FLEET_KEY',
  gateway: { url: 'http://gw:4000', tokenEnv: 'AGENT_TOKEN', ownTokenEnv: true, name: 'gw' },
  operator: { tokenEnv: 'OPERATOR_TOKEN', token: 'operator-token' },
};

describe('node command environment', () => {
  it('names every token and key variable of the fleet file, and their values', () => {
    const hidden = fleetSecrets(fleet, 'gateway-token');
    expect([...hidden.variables].sort()).toEqual(
      [
        'AGENT_TOKEN',
        'FLEET_KEY',
        'GPU1_KEY',
        'GPU1_TOKEN',
        'OPERATOR_TOKEN',
        'SVC_API_TOKEN',
      ].sort(),
    );
    expect([...hidden.values].sort()).toEqual(
      ['cloud-key', 'daemon-token', 'engine-key', 'gateway-token', 'operator-token'].sort(),
    );
  });

  it('leaves out the hidden variables and any variable holding a hidden value', () => {
    const env = {
      PATH: '/usr/bin',
      GPU1_TOKEN: 'daemon-token',
      FLEET_KEY: 'fleet-key',
      AGENT_TOKEN: 'agent-token',
      OPERATOR_TOKEN: 'operator-token',
      SVC_API_TOKEN: 'gateway-token',
      MY_COPY: 'gateway-token',
      UNSET: undefined,
      SVC_NODE: 'spoofed',
    };
    expect(commandEnvironment(env, 'gpu1', fleetSecrets(fleet, 'gateway-token'))).toEqual({
      PATH: '/usr/bin',
      SVC_NODE: 'gpu1',
    });
  });

  it('leaves out SVC_API_TOKEN even when nothing else is hidden', () => {
    expect(
      commandEnvironment({ SVC_API_TOKEN: 't', LANG: 'C' }, 'n', { variables: [], values: [] }),
    ).toEqual({ LANG: 'C', SVC_NODE: 'n' });
  });
});
