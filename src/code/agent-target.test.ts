import { describe, expect, it } from 'vitest';

import type { FleetGateway } from '../core/fleet/file/fleet-file.ts';
import {
  agentBaseUrl,
  checkModel,
  firstSet,
  gatewayKey,
  listedModelsOf,
  modelIdsOf,
  nodeEngineKey,
} from './agent-target.ts';

const gateway = (tokenEnv: string, ownTokenEnv: boolean): FleetGateway => ({
  url: 'http://gw:4000',
  tokenEnv,
  ownTokenEnv,
  name: 'gw:4000',
});

describe('agentBaseUrl (spec §4.2)', () => {
  it.each([
    ['http://gw:4000', 'http://gw:4000/v1'],
    ['http://gw:4000/', 'http://gw:4000/v1'],
    ['https://gw.example/openai/v1', 'https://gw.example/openai/v1'],
    ['http://gw:4000/custom/', 'http://gw:4000/custom'],
  ])('%s → %s', (url, base) => {
    expect(agentBaseUrl(url)).toBe(base);
  });
});

describe('gatewayKey: the credential order', () => {
  const envLine = { GW: 'from-env-line' };
  const processEnv = { GW: 'from-process' };
  const dotenv = { GW: 'from-dotenv' };

  it('takes the first layer that sets the variable, skipping empty values', () => {
    expect(gatewayKey(gateway('GW', true), [envLine, processEnv, dotenv], 'x')).toEqual({
      variable: 'GW',
      value: 'from-env-line',
    });
    expect(gatewayKey(gateway('GW', true), [{ GW: '' }, processEnv, dotenv], 'x')?.value).toBe(
      'from-process',
    );
    expect(gatewayKey(gateway('GW', true), [{}, {}, dotenv], 'x')?.value).toBe('from-dotenv');
  });

  it('refuses a variable the section names itself when it is set nowhere, naming it and where', () => {
    expect(() =>
      gatewayKey(gateway('GW', true), [{}, {}], 'the .env beside /f/fleet.yaml'),
    ).toThrow('GW is not set (the gateway): export it, or put it in the .env beside /f/fleet.yaml');
  });

  it('lets the OPENAI_API_KEY stand-in be unset: no key is written', () => {
    expect(gatewayKey(gateway('OPENAI_API_KEY', false), [{}, {}], 'x')).toBeUndefined();
    expect(gatewayKey(gateway('OPENAI_API_KEY', false), [{ OPENAI_API_KEY: 'k' }], 'x')).toEqual({
      variable: 'OPENAI_API_KEY',
      value: 'k',
    });
  });

  it('firstSet is undefined when every layer is empty', () => {
    expect(firstSet('A', [{ A: '' }, {}])).toBeUndefined();
  });
});

describe('nodeEngineKey (spec §1.4 optional-key engines)', () => {
  const node = { engineTokenEnv: 'ENGINE_KEY', engineKey: 'ek' };

  it("uses the node's engineTokenEnv for a gated engine", () => {
    expect(nodeEngineKey(node, 'llamacpp', 'ek', {})).toEqual({
      variable: 'ENGINE_KEY',
      value: 'ek',
    });
  });

  it('writes no key for an ungated llama.cpp engine, even with OPENAI_API_KEY set', () => {
    expect(nodeEngineKey({}, 'llamacpp', undefined, { OPENAI_API_KEY: 'k' })).toBeUndefined();
  });

  it.each(['omlx', 'mtplx'])(
    'writes the OPENAI_API_KEY reference for %s only when it is set',
    (runner) => {
      expect(nodeEngineKey({}, runner, undefined, {})).toBeUndefined();
      expect(nodeEngineKey({}, runner, undefined, { OPENAI_API_KEY: '' })).toBeUndefined();
      expect(nodeEngineKey({}, runner, undefined, { OPENAI_API_KEY: 'k' })).toEqual({
        variable: 'OPENAI_API_KEY',
        value: 'k',
      });
    },
  );
});

describe('modelIdsOf', () => {
  it('reads ids from an OpenAI list, once each, in order', () => {
    expect(
      modelIdsOf({ object: 'list', data: [{ id: 'b' }, { id: 'a' }, { id: 'b' }, { x: 1 }] }),
    ).toEqual(['b', 'a']);
  });

  it('is empty for anything else', () => {
    expect(modelIdsOf(null)).toEqual([]);
    expect(modelIdsOf({ data: 'x' })).toEqual([]);
  });
});

describe('listedModelsOf', () => {
  it("keeps each model's svc state where the gateway reports one", () => {
    expect(
      listedModelsOf({
        data: [{ id: 'a', svc: { state: 'running' } }, { id: 'b', svc: {} }, { id: 'a' }],
      }),
    ).toEqual([{ id: 'a', state: 'running' }, { id: 'b' }]);
  });
});

describe('checkModel (--model)', () => {
  it('accepts a listed id and refuses another, naming the closest and every listed id', () => {
    expect(() => checkModel('tiny', ['tiny', 'big'], 'the gateway')).not.toThrow();
    expect(() => checkModel('tiyn', ['tiny', 'big'], 'the gateway')).toThrow(
      '--model "tiyn" is not a model the gateway lists (did you mean "tiny"?): it lists tiny, big',
    );
    expect(() => checkModel('x', [], 'the gateway')).toThrow('it lists none');
    const many = Array.from({ length: 25 }, (_, index) => `m${index}`);
    expect(() => checkModel('zzz', many, 'g')).toThrow('m19 and 5 more');
  });
});
