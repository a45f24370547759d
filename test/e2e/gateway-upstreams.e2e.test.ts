/**
 * Upstream nodes through the built gateway (docs/design.md D30), against the fake OpenAI server
 * (test/support/fakes/fake-openai.ts): the node's key in place of the caller's, the body's model
 * renamed only for a mapped name, the reply and a stream relayed with x-svc-node, the upstream's
 * own 4xx passed on, an unreachable upstream a 502 naming it, and the key in no reply or log line;
 * a fleet file giving an upstream node a placement key is refused before anything runs.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { type FakeOpenai, fakeOpenai } from '../support/fakes/fake-openai.ts';
import { chat } from '../support/http/chat.ts';
import { authorized, GATEWAY_TOKEN, startTestGateway } from '../support/svc/gateway-fleet.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';

const KEY = 'sk-upstream-e2e-secret-7f3a';
const fakes: FakeOpenai[] = [];

afterEach(async () => {
  for (const fake of fakes.splice(0)) {
    await fake.close();
  }
});

async function gatewayOver(url: string) {
  const dir = await tempDir();
  await writeFile(
    join(dir, 'fleet.yaml'),
    [
      'nodes:',
      '  - name: hosted',
      '    kind: upstream',
      `    url: ${url}`,
      '    apiKeyEnv: HOSTED_KEY',
      '    models:',
      '      big: vendor/big-70b',
      '      small: small',
      '',
    ].join('\n'),
  );
  return startTestGateway({ cwd: dir, configDir: join(dir, 'config'), env: { HOSTED_KEY: KEY } });
}

describe('upstream nodes through the gateway', () => {
  it('relays with its key and the mapped id, streams, passes 4xx on, and shows the key nowhere', async () => {
    const fake = await fakeOpenai();
    fakes.push(fake);
    const { gateway, url } = await gatewayOver(fake.url);

    const reply = await chat(url, { model: 'big' }, { headers: authorized() });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-svc-node')).toBe('hosted');
    expect(reply.headers.get('server-timing')).toContain('gateway;dur=');
    await reply.text();
    await chat(url, { model: 'small' }, { headers: authorized() }).then((r) => r.text());

    fake.answer = { kind: 'stream', chunks: ['{"n":1}', '{"n":2}'] };
    const stream = await chat(url, { model: 'big', stream: true }, { headers: authorized() });
    expect(await stream.text()).toBe('data: {"n":1}\n\ndata: {"n":2}\n\ndata: [DONE]\n\n');

    fake.answer = { kind: 'json', status: 401, body: { error: { message: 'bad key' } } };
    const refused = await chat(url, { model: 'big' }, { headers: authorized() });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-svc-node')).toBe('hosted');
    expect(await refused.json()).toEqual({ error: { message: 'bad key' } });

    const posts = fake.seen.filter((seen) => seen.path === '/v1/chat/completions');
    expect(posts.map((seen) => seen.model)).toEqual([
      'vendor/big-70b',
      'small',
      'vendor/big-70b',
      'vendor/big-70b',
    ]);
    expect(posts.every((seen) => seen.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(JSON.stringify(fake.seen)).not.toContain(GATEWAY_TOKEN);

    const fleet = await fetch(`${url}/v1/fleet`, { headers: authorized() });
    const fleetText = await fleet.text();
    expect(JSON.parse(fleetText)).toMatchObject({
      nodes: [{ name: 'hosted', kind: 'upstream', state: 'running', models: ['big', 'small'] }],
    });
    expect(fleetText).not.toContain(KEY);
    await gateway.kill();
    expect(gateway.output()).not.toContain(KEY);
  });

  it('answers 502 naming an upstream node nothing answers for', async () => {
    const { gateway, url } = await gatewayOver('http://127.0.0.1:9/v1');
    const reply = await chat(url, { model: 'big' }, { headers: authorized() });
    expect(reply.status).toBe(502);
    const text = await reply.text();
    expect(text).toContain('hosted');
    expect(text).not.toContain(KEY);
    await gateway.kill();
  });

  it('refuses a placement key on an upstream node before anything runs', async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, 'fleet.yaml'),
      'nodes:\n  - name: hosted\n    kind: upstream\n    url: http://127.0.0.1:9/v1\n    models: [big]\n    idleStop: 5m\n',
    );
    const run = await runSvc(['fleet', 'status'], { cwd: dir });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('node "hosted" is an upstream node, so idleStop does not apply');
  });
});
