/**
 * A request retried on its fallback (docs/design.md D30 `failed`) is booked where it runs, through
 * the built gateway: a command engine that answers 500 on cue (local node `flaky`,
 * test/fixtures/command-server.mjs --fail) and the fake OpenAI server (upstream node `hosted`,
 * holding its reply while told to: a slow reply a real hosted API cannot give on cue). While the
 * fallback's reply runs, `/v1/fleet` counts the request in flight on `hosted`, not on `flaky`
 * (docs/design.md D25 `inFlight`), and `/metrics` counts the failure against `flaky` and the reply
 * under `hosted`; a retry `hosted` cannot take (its checks unanswered: unreachable) is counted
 * under `hosted`, and `flaky`'s failure once.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type FakeOpenai, fakeOpenai } from '../support/fakes/fake-openai.ts';
import { chat } from '../support/http/chat.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import { failingEngineSvcfile } from '../support/project-files/failing-engine.ts';
import { authorized, startTestGateway } from '../support/svc/gateway-fleet.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

let fake: FakeOpenai;
let url: string;

beforeAll(() => sharedByFile(startFleet));

async function startFleet(): Promise<void> {
  fake = await fakeOpenai();
  const dir = await tempDir();
  await writeFile(join(dir, 'flaky.svc'), failingEngineSvcfile('flaky'));
  await writeFile(
    join(dir, 'fleet.yaml'),
    [
      'nodes:',
      '  - {name: flaky, kind: local, file: flaky.svc}',
      `  - {name: hosted, kind: upstream, url: "${fake.url}", models: [flaky]}`,
      'fallbacks:',
      '  flaky: {to: hosted, when: [failed]}',
      '',
    ].join('\n'),
  );
  ({ url } = await startTestGateway({
    cwd: dir,
    configDir: join(dir, 'config'),
    env: { PATH: testPath() },
  }));
}

afterAll(async () => {
  await endSharedByFile();
  await fake.close();
});

/** The nodes of `/v1/fleet`. */
async function fleetNodes(): Promise<{ name: string; state: string; inFlight?: number }[]> {
  const reply = await fetch(`${url}/v1/fleet`, { headers: authorized() });
  return ((await reply.json()) as { nodes: { name: string; state: string }[] }).nodes;
}

/** Each node's `inFlight` in `/v1/fleet`, as `name inFlight`. */
async function inFlight(): Promise<string[]> {
  return (await fleetNodes()).map((node) => `${node.name} ${String(node.inFlight)}`);
}

/** The value of one series in `/metrics`, or undefined when it has none. */
async function sample(series: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`, { headers: authorized() })).text();
  const line = text.split('\n').find((each) => each.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const posts = (): number => fake.seen.filter((seen) => seen.path === '/v1/chat/completions').length;

describe('a request retried on its fallback', () => {
  it("counts the failure against the failed node, and the fallback's reply under its name", async () => {
    const failures = 'svc_gateway_upstream_errors_total{node="flaky"}';
    const answered =
      'svc_gateway_requests_total{route="/v1/chat/completions",model="flaky",node="hosted",status_class="2xx"}';
    const before = {
      failures: (await sample(failures)) ?? 0,
      answered: (await sample(answered)) ?? 0,
    };
    const reply = await chat(url, { model: 'flaky' }, { headers: authorized() });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-svc-node')).toBe('hosted');
    expect(reply.headers.get('x-svc-fallback')).toBe('failed');
    await reply.text();
    expect(await sample(failures)).toBe(before.failures + 1);
    // Recorded as the reply closes, which the caller may see just before.
    await eventually(
      () => sample(answered),
      (count) => count === before.answered + 1,
      "the fallback's reply counted",
    );
    // The fallback answered: nothing of it is counted as an error.
    expect(await sample('svc_gateway_upstream_errors_total{node="hosted"}')).toBeUndefined();
  });

  it('is in flight on the fallback, not on the node that failed, while the reply runs', async () => {
    // flaky is up since the case before (its first request woke it): this one goes at once.
    const sent = posts();
    fake.answer = { kind: 'hang' };
    const caller = new AbortController();
    const reply = chat(url, { model: 'flaky' }, { headers: authorized(), signal: caller.signal });
    try {
      await eventually(
        () => Promise.resolve(posts()),
        (count) => count === sent + 1,
        'the retry reaching hosted',
      );
      // The fallback holds its reply: the request runs there, and flaky's slot is free.
      expect(await inFlight()).toEqual(['flaky 0', 'hosted 1']);
    } finally {
      caller.abort();
      await reply.catch(() => undefined);
      fake.answer = { kind: 'json' };
    }
    await eventually(inFlight, (nodes) => nodes.includes('hosted 0'), 'hosted free again');
  });

  it('counts a retry its fallback cannot take under the fallback, the failure once', async () => {
    const failures = 'svc_gateway_upstream_errors_total{node="flaky"}';
    const fallback = 'svc_gateway_upstream_errors_total{node="hosted"}';
    const before = {
      failures: (await sample(failures)) ?? 0,
      fallback: (await sample(fallback)) ?? 0,
    };
    // Its /models check goes unanswered too: the gateway holds it unreachable.
    fake.answer = { kind: 'hang' };
    try {
      await eventually(
        fleetNodes,
        (nodes) => nodes.some((node) => node.name === 'hosted' && node.state === 'unreachable'),
        'hosted unreachable',
        { timeoutMs: 60_000 },
      );
      const reply = await chat(url, { model: 'flaky' }, { headers: authorized() });
      expect(`${reply.status} ${await reply.text()}`).toContain('502 ');
      await eventually(
        () => sample(fallback),
        (count) => count === before.fallback + 1,
        "the fallback's failure counted",
      );
      expect(await sample(failures)).toBe(before.failures + 1);
    } finally {
      fake.answer = { kind: 'json' };
    }
  });
});
