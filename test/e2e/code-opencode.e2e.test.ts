/**
 * `svc code` launching the REAL opencode (the opencode-ai dev dependency) non-interactively
 * through a real gateway in front of a real daemon and llama-server on the tiny model. opencode's
 * first request is about 9k tokens, so the model declares context_length 32768. The reply is
 * gibberish; what counts is that opencode exits 0 and its requests went through the gateway
 * (whose access log records them, and whose request woke the node).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT, testPath } from '../support/prerequisites/engines.ts';
import { runSvcCode, startAgentFleet } from '../support/svc/agent-fleet.ts';
import { GATEWAY_TOKEN } from '../support/svc/gateway-fleet.ts';
import { tempDir } from '../support/svc/svc.ts';

const OPENCODE_BIN = join(REPO_ROOT, 'node_modules', '.bin');

describe('svc code with the real opencode', () => {
  it('runs opencode run through the gateway on the real llama-server and exits 0', async () => {
    const dir = await tempDir();
    const { daemon, gateway, gatewayUrl } = await startAgentFleet(dir);

    // opencode writes its data, cache and state under HOME/XDG dirs: all private to this test.
    const home = join(dir, 'home');
    await mkdir(join(home, '.config', 'opencode'), { recursive: true });
    // This test user's own opencode config, which opencode merges under svc's inline one: the
    // tiny model writes gibberish until its output limit (llama-server's -n does not cap a
    // request's max_tokens), slowly over a 9k-token context on a loaded machine, so replies are
    // capped at 8 tokens; without tools the gibberish cannot start a tool loop.
    await writeFile(
      join(home, '.config', 'opencode', 'opencode.json'),
      JSON.stringify({
        tools: { '*': false },
        autoupdate: false,
        share: 'disabled',
        provider: { svc: { models: { tiny: { limit: { context: 32768, output: 8 } } } } },
      }),
    );
    const run = await runSvcCode(
      dir,
      ['a.svc', '--', 'run', 'say hello', '-m', 'svc/tiny'],
      {
        PATH: testPath(OPENCODE_BIN),
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_DATA_HOME: join(home, '.local', 'share'),
        XDG_CACHE_HOME: join(home, '.cache'),
        XDG_STATE_HOME: join(home, '.local', 'state'),
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
      },
      400_000,
    );
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stderr).toContain(`opencode → ${gatewayUrl}/v1`);
    // opencode's completions reached the engine through the gateway, which woke the node for them.
    expect(gateway.stderr()).toMatch(/method=POST path=\/v1\/chat\/completions status=200/);
    expect(gateway.stderr()).not.toMatch(/path=\/v1\/chat\/completions status=(?:4|5)\d\d/);
    const node = (await daemon.call('GET', '/v1/status')).json;
    expect(node['state']).toBe('running');
    expect(node['lastActiveAt']).toBeDefined();
    expect(`${run.stdout}${run.stderr}`).not.toContain(GATEWAY_TOKEN);
  }, 420_000);
});
