/**
 * Callers (docs/design.md D29), end to end: the built gateway in front of two real daemons, each
 * able to wake the real llama-server on the tiny model (`a` serves tiny-a, `b` tiny-b). `ci` may
 * use tiny-a alone and may not wake nodes; `alice` may use everything. Each sees only its models,
 * is refused the others with 403 `model_not_allowed`, and `ci` is refused a wake with 403
 * `wake_not_allowed` naming the node while no engine starts (the process table says so); the
 * access line names the caller, and no caller token appears in any reply or log.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chat } from '../support/http/chat.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import { nodesWithEngines } from '../support/processes/engine-watch.ts';
import {
  authorized,
  GATEWAY_TOKEN,
  type GatewayFleet,
  startGatewayFleet,
} from '../support/svc/gateway-fleet.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const CI_TOKEN = 'ci-token-3b4c5d';
const ALICE_TOKEN = 'alice-token-6e7f80';

let fleet: GatewayFleet;

beforeAll(async () => {
  fleet = await sharedByFile(async () => {
    const model = await writeTinyModel(join(await tempDir(), 'tiny.gguf'));
    // The file holds alice's token as its hash alone, as a team would write it.
    const aliceHash = createHash('sha256').update(ALICE_TOKEN).digest('hex');
    return startGatewayFleet(
      ['a', 'b'].map((name) => ({
        name,
        svcfile: `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny-${name}\nBASEURL 127.0.0.1:{port}\n`,
      })),
      {
        top: [
          'callers:',
          '  - {name: ci, tokenEnv: CI_TOKEN, models: ["tiny-a"], wake: off}',
          `  - {name: alice, tokenSha256: "${aliceHash}"}`,
        ],
        gatewayEnv: { CI_TOKEN },
      },
    );
  });
});
afterAll(endSharedByFile);

const daemonPids = (): Record<string, number> =>
  Object.fromEntries(
    Object.entries(fleet.daemons).map(([name, daemon]) => [name, daemon.process.pid]),
  );

async function modelIds(token: string): Promise<string[]> {
  const reply = await fetch(`${fleet.url}/v1/models`, { headers: authorized(token) });
  expect(reply.status).toBe(200);
  const body = (await reply.json()) as { data: { id: string }[] };
  return body.data.map((entry) => entry.id).sort();
}

describe('callers', () => {
  it('shows each caller only its models and refuses the others with 403 model_not_allowed', async () => {
    expect(await modelIds(CI_TOKEN)).toEqual(['tiny-a']);
    expect(await modelIds(ALICE_TOKEN)).toEqual(['tiny-a', 'tiny-b']);
    expect(await modelIds(GATEWAY_TOKEN)).toEqual(['tiny-a', 'tiny-b']);
    const refused = await chat(fleet.url, { model: 'tiny-b' }, { headers: authorized(CI_TOKEN) });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      error: { type: 'permission_error', code: 'model_not_allowed' },
    });
    const entry = await fetch(`${fleet.url}/v1/models/tiny-b`, { headers: authorized(CI_TOKEN) });
    expect(entry.status).toBe(403);
    const fleetBody = await fetch(`${fleet.url}/v1/fleet`, { headers: authorized(CI_TOKEN) });
    expect(JSON.stringify(await fleetBody.json())).not.toContain('tiny-b');
    expect(nodesWithEngines(daemonPids())).toEqual([]);
  });

  it('refuses a wake to a caller with wake: off naming the node, which stays stopped', async () => {
    const refused = await chat(fleet.url, { model: 'tiny-a' }, { headers: authorized(CI_TOKEN) });
    expect(refused.status).toBe(403);
    const body = (await refused.json()) as {
      error: { type: string; code: string; message: string };
    };
    expect(body.error).toMatchObject({ type: 'permission_error', code: 'wake_not_allowed' });
    expect(body.error.message).toContain('"a"');
    expect(nodesWithEngines(daemonPids())).toEqual([]);
    const status = await fleet.daemons['a']?.call('GET', '/v1/status');
    // Its daemon was never asked to start an engine.
    expect(status?.json).toMatchObject({ state: 'idle' });
  });

  it('serves the caller once another has woken the node, and names each caller in its access line', async () => {
    const woken = await chat(fleet.url, { model: 'tiny-a' }, { headers: authorized(ALICE_TOKEN) });
    expect(woken.status).toBe(200);
    await woken.json();
    const served = await chat(fleet.url, { model: 'tiny-a' }, { headers: authorized(CI_TOKEN) });
    expect(served.status).toBe(200);
    await served.json();
    // Each line is written once its reply has closed, which may follow the body read here.
    const completions = (): string[] =>
      fleet.requestLines().filter((line) => line.includes('path=/v1/chat/completions'));
    const has = (lines: string[], caller: string, status: number): boolean =>
      lines.some((line) => line.includes(`status=${status} `) && line.endsWith(`caller=${caller}`));
    const lines = await eventually(
      () => Promise.resolve(completions()),
      (found) => has(found, 'alice', 200) && has(found, 'ci', 200),
      'access lines naming each caller',
    );
    expect(has(lines, 'ci', 403)).toBe(true);
  });

  it("counts each caller's usage as the sum of its replies' own usage, streamed and not", async () => {
    interface Usage {
      prompt_tokens: number;
      completion_tokens: number;
      prompt_tokens_details?: { cached_tokens: number };
    }
    interface Counts {
      requests: number;
      promptTokens: number;
      completionTokens: number;
      cachedTokens: number;
      codes: Record<string, number>;
    }
    const counts = async (): Promise<Counts | undefined> => {
      const reply = await fetch(`${fleet.url}/v1/fleet/usage`, { headers: authorized(CI_TOKEN) });
      const body = (await reply.json()) as {
        callers: { name: string; models: (Counts & { model: string })[] }[];
      };
      expect(body.callers.map((caller) => caller.name)).toEqual(['ci']);
      return body.callers[0]?.models.find((entry) => entry.model === 'tiny-a');
    };
    // The earlier tests' ci requests for tiny-a: one refused a wake, one served.
    const before = await counts();
    expect(before).toMatchObject({ requests: 2, codes: { '200': 1, '403': 1 } });

    const plain = await chat(fleet.url, { model: 'tiny-a' }, { headers: authorized(CI_TOKEN) });
    const replies: Usage[] = [((await plain.json()) as { usage: Usage }).usage];
    const streamed = await chat(
      fleet.url,
      { model: 'tiny-a', stream: true, stream_options: { include_usage: true } },
      { headers: authorized(CI_TOKEN) },
    );
    const final = (await streamed.text())
      .split('\n')
      .filter((line) => line.startsWith('data: {') && line.includes('"usage"'))
      .map((line) => (JSON.parse(line.slice('data: '.length)) as { usage: Usage }).usage);
    expect(final).toHaveLength(1);
    replies.push(...final);
    const sum = (pick: (usage: Usage) => number): number =>
      replies.reduce((total, usage) => total + pick(usage), 0);

    const after = await eventually(
      counts,
      (found) => found?.requests === 4,
      'two more ci requests',
    );
    expect(after).toEqual({
      model: 'tiny-a',
      requests: 4,
      codes: { '200': 3, '403': 1 },
      promptTokens: (before?.promptTokens ?? 0) + sum((usage) => usage.prompt_tokens),
      completionTokens: (before?.completionTokens ?? 0) + sum((usage) => usage.completion_tokens),
      cachedTokens:
        (before?.cachedTokens ?? 0) +
        sum((usage) => usage.prompt_tokens_details?.cached_tokens ?? 0),
    });

    const activity = await fetch(`${fleet.url}/v1/fleet/activity?limit=2`, {
      headers: authorized(GATEWAY_TOKEN),
    });
    const latest = ((await activity.json()) as { requests: Record<string, unknown>[] }).requests;
    expect(latest.map((entry) => entry['completionTokens'])).toEqual(
      [...replies].reverse().map((usage) => usage.completion_tokens),
    );
    expect(latest[0]).toMatchObject({ caller: 'ci', model: 'tiny-a', node: 'a', status: 200 });
    expect(JSON.stringify(latest)).not.toContain('hello');
  });

  it('never shows a caller token in a reply, a log line or a metric', async () => {
    const replies = await Promise.all(
      ['/v1/models', '/v1/fleet', '/metrics'].map(async (path) => {
        const reply = await fetch(`${fleet.url}${path}`, { headers: authorized(GATEWAY_TOKEN) });
        return reply.text();
      }),
    );
    for (const text of [...replies, fleet.gateway.stderr(), fleet.gateway.stdout()]) {
      expect(text).not.toContain(CI_TOKEN);
      expect(text).not.toContain(ALICE_TOKEN);
    }
  });
});
