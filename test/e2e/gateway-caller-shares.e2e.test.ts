/**
 * Callers' fair shares and `concurrency` (docs/design.md D29), end to end: the built gateway in
 * front of one real daemon running the slot-limited fake engine (2 slots, each reply holding its
 * slot 1.5 s). An agent's backlog of 20 does not hold up a person's one request beyond the next
 * slot to free; a caller with `concurrency: 1` never has two in flight while another caller uses
 * the other slot. Each request's dispatch is read from the gateway's own activity (arrival plus
 * time queued), so the assertions are on order, never on wall-clock limits. Then `svc fleet
 * usage` and `svc fleet activity [-f]` through the built CLI, and one line when no gateway answers.
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import { startProcess } from '../support/processes/processes.ts';
import { authorized, GATEWAY_TOKEN } from '../support/svc/gateway-fleet.ts';
import { type SlotFleet, startSlotFleet } from '../support/svc/slot-fleet.ts';
import { runSvc, SVC, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

/** Far below the 1.5 s a reply holds its slot: rounding and event-loop lag, never an overlap. */
const SLACK_MS = 250;

const TOKENS = { agent: 'agent-token-1a2b', person: 'person-token-3c4d', solo: 'solo-token-5e6f' };
const sha = (token: string): string => createHash('sha256').update(token).digest('hex');

interface Activity {
  readonly at: string;
  readonly caller: string;
  readonly status: number;
  readonly queueMs: number;
  readonly totalMs: number;
}

let fleet: SlotFleet;

beforeAll(async () => {
  fleet = await sharedByFile(async () => {
    const started = await startSlotFleet({
      nodes: 1,
      slots: 2,
      holdMs: 1_500,
      fleetText: [
        'queue: {max: 64, timeout: 10m}',
        'callers:',
        `  - {name: agent, tokenSha256: "${sha(TOKENS.agent)}", priority: low}`,
        `  - {name: person, tokenSha256: "${sha(TOKENS.person)}"}`,
        `  - {name: solo, tokenSha256: "${sha(TOKENS.solo)}", concurrency: 1}`,
      ].join('\n'),
    });
    await started.startAll();
    return started;
  });
});
afterAll(endSharedByFile);

/** A completion as the caller; resolves with its status (a dropped connection: 0). */
async function ask(token: string): Promise<number> {
  try {
    const reply = await fetch(`${fleet.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...authorized(token), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await reply.arrayBuffer();
    return reply.status;
  } catch {
    return 0;
  }
}

async function activity(): Promise<Activity[]> {
  const reply = await fetch(`${fleet.url}/v1/fleet/activity?limit=1000`, {
    headers: authorized(GATEWAY_TOKEN),
  });
  return ((await reply.json()) as { requests: Activity[] }).requests.toReversed();
}

const arrived = (entry: Activity): number => Date.parse(entry.at);
const dispatched = (entry: Activity): number => arrived(entry) + entry.queueMs;
const ended = (entry: Activity): number => arrived(entry) + entry.totalMs;

async function queued(): Promise<number> {
  const reply = await fetch(`${fleet.url}/v1/fleet`, { headers: authorized(GATEWAY_TOKEN) });
  return ((await reply.json()) as { queued?: Record<string, number> }).queued?.['fake'] ?? 0;
}

describe('fair shares between callers', () => {
  it("does not hold a person's request behind an agent's backlog of 20", async () => {
    const backlog = Array.from({ length: 20 }, () => ask(TOKENS.agent));
    await eventually(queued, (count) => count >= 15, 'the agent backlog queued');
    expect(await ask(TOKENS.person)).toBe(200);
    const seen = await activity();
    const person = seen.find((entry) => entry.caller === 'person');
    if (person === undefined) {
      throw new Error('no activity for the person');
    }
    // Agent requests sent to a slot after the person arrived and before it went: at most the
    // one slot that freed first (first in, first out would send every one of the backlog).
    const ahead = seen.filter(
      (entry) =>
        entry.caller === 'agent' &&
        dispatched(entry) > arrived(person) + SLACK_MS &&
        dispatched(entry) < dispatched(person) - SLACK_MS,
    );
    expect(ahead.length).toBeLessThanOrEqual(1);
    expect(await Promise.all(backlog)).toEqual(Array<number>(20).fill(200));
  });

  it('keeps a caller with concurrency: 1 to one request in flight while others use the rest', async () => {
    const before = (await activity()).length;
    const replies = await Promise.all([
      ...Array.from({ length: 4 }, () => ask(TOKENS.solo)),
      ...Array.from({ length: 4 }, () => ask(TOKENS.person)),
    ]);
    expect(replies).toEqual(Array<number>(8).fill(200));
    const seen = (await activity()).slice(before);
    const solo = seen
      .filter((entry) => entry.caller === 'solo')
      .sort((a, b) => dispatched(a) - dispatched(b));
    expect(solo).toHaveLength(4);
    for (let index = 1; index < solo.length; index += 1) {
      // Each went only once the one before had ended (give or take SLACK_MS).
      expect(dispatched(solo[index] as Activity)).toBeGreaterThanOrEqual(
        ended(solo[index - 1] as Activity) - SLACK_MS,
      );
    }
    // Meanwhile the other slot served the person: some of its requests ran beside solo's.
    const person = seen.filter((entry) => entry.caller === 'person');
    const beside = person.filter((p) =>
      solo.some((s) => dispatched(p) < ended(s) - SLACK_MS && dispatched(s) < ended(p) - SLACK_MS),
    );
    expect(beside.length).toBeGreaterThan(0);
  });
});

describe('svc fleet usage and activity', () => {
  /** A fleet file naming this gateway, beside the test fleet's own (its .env included). */
  async function cliFleet(url: string): Promise<string> {
    const path = join(fleet.fleet.dir, 'cli-fleet.yaml');
    const own = await readFile(join(fleet.fleet.dir, 'fleet.yaml'), 'utf8');
    const nodes = own.slice(own.indexOf('nodes:'));
    await writeFile(path, `gateway:\n  url: ${url}\n  tokenEnv: LAB_TOKEN\n  name: lab\n${nodes}`);
    return path;
  }

  it('prints usage per caller and model, each caller seeing only itself', async () => {
    const file = await cliFleet(fleet.url);
    const all = await runSvc(['fleet', 'usage', '-f', file], { env: { LAB_TOKEN: GATEWAY_TOKEN } });
    expect(all.stderr).toBe('');
    expect(all.status).toBe(0);
    const lines = all.stdout.split('\n');
    expect(lines[0]).toMatch(/^CALLER\s+MODEL\s+REQUESTS\s+PROMPT\s+COMPLETION\s+CACHED$/);
    expect(lines.some((line) => /^agent\s+fake\s+20\s/.test(line))).toBe(true);
    const own = await runSvc(['fleet', 'usage', '-f', file, '--json'], {
      env: { LAB_TOKEN: TOKENS.person },
    });
    const body = JSON.parse(own.stdout) as { callers: { name: string }[] };
    expect(body.callers.map((caller) => caller.name)).toEqual(['person']);
    expect(own.stdout + own.stderr + all.stdout).not.toContain(TOKENS.person);
  });

  it('prints activity newest last, follows with -f until Ctrl+C, and refuses a caller token', async () => {
    const file = await cliFleet(fleet.url);
    const env = { ...process.env, LAB_TOKEN: GATEWAY_TOKEN };
    const shown = await runSvc(['fleet', 'activity', '--fleet', file, '--limit', '3'], { env });
    expect(shown.status).toBe(0);
    const rows = shown.stdout.trim().split('\n');
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatch(/^AT\s+CALLER\s+MODEL/);
    // Newest last: the gateway's newest three, in the order they were answered.
    const latest = (await activity()).slice(-3);
    expect(rows.slice(1).map((row) => row.split(/\s+/).slice(0, 2).join(' '))).toEqual(
      latest.map((entry) => `${entry.at} ${entry.caller}`),
    );

    const follow = startProcess(SVC, ['fleet', 'activity', '-f', '--fleet', file, '--limit', '1'], {
      cwd: await tempDir(),
      env,
    });
    try {
      // The header and the one latest request.
      await follow.waitFor(/^AT\s+CALLER.*\n.+\n/m);
      expect(await ask(TOKENS.solo)).toBe(200);
      const lines = await eventually(
        () => Promise.resolve(follow.stdout().trim().split('\n')),
        (printed) => printed.length > 2,
        'the new request printed',
      );
      // The new request alone, after what was already printed.
      expect(lines).toHaveLength(3);
      expect(lines[2]).toMatch(/^\S+\s+solo\s+fake\s+\S+\s+200\s/);
      follow.child.kill('SIGINT');
      expect(await follow.exited()).toBe(0);
    } finally {
      await follow.kill();
    }

    const refused = await runSvc(['fleet', 'activity', '--fleet', file], {
      env: { LAB_TOKEN: TOKENS.person },
    });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain('HTTP 403');
  });

  it('says in one line that no gateway answers', async () => {
    const file = await cliFleet('http://127.0.0.1:9');
    const result = await runSvc(['fleet', 'usage', '-f', file], { env: { LAB_TOKEN: 'x' } });
    expect(result.status).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^svc: no gateway answers at http:\/\/127\.0\.0\.1:9 \(lab\): /),
    ]);
  });
});
