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

import { opencodeEnv, runSvcCode, startAgentFleet } from '../support/svc/agent-fleet.ts';
import { GATEWAY_TOKEN } from '../support/svc/gateway-fleet.ts';
import { tempDir } from '../support/svc/svc.ts';

describe('svc code with the real opencode', () => {
  it('runs opencode run through the gateway on the real llama-server and exits 0', async () => {
    const dir = await tempDir();
    // The tiny model writes gibberish until its output limit (llama-server's -n does not cap a
    // request's max_tokens), slowly over a 9k-token context on a loaded machine, so the Svcfile's
    // OUTPUT, which svc code hands opencode, caps replies at 8 tokens.
    const { daemon, gateway, gatewayUrl } = await startAgentFleet(dir, undefined, ['OUTPUT 8']);

    // opencode writes its data, cache and state under HOME/XDG dirs: all private to this test.
    const home = join(dir, 'home');
    await mkdir(join(home, '.config', 'opencode'), { recursive: true });
    // This test user's own opencode config, which opencode merges under svc's inline one:
    // without tools the gibberish cannot start a tool loop.
    await writeFile(
      join(home, '.config', 'opencode', 'opencode.json'),
      JSON.stringify({
        tools: { '*': false },
        autoupdate: false,
        share: 'disabled',
      }),
    );
    const run = await runSvcCode(
      dir,
      ['a.svc', '--', 'run', 'say hello', '-m', 'svc/tiny'],
      opencodeEnv(home),
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
