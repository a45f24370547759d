/**
 * `svc code --agent claude|codex` launching the REAL agents (the @anthropic-ai/claude-code and
 * @openai/codex dev dependencies) non-interactively and offline, through a real gateway in front
 * of a real daemon whose llama-server runs the long-context tiny model. The replies are empty (see
 * below); what counts is that each agent exits 0 and its request reached the gateway on the endpoint it
 * speaks (Claude Code: /v1/messages, Codex: /v1/responses), woke the sleeping node, and was
 * answered 200.
 *
 * Each agent's default prompt is long (Claude Code ~28k tokens, Codex ~20k): minutes of prompt
 * processing for the tiny model on a loaded 2-core machine. So the tests trim what the agents send
 * with the agents' own options, as a user could: Claude Code without tools and with a one-line
 * system prompt, Codex with a one-line instructions file. And the project's preset makes the
 * engine end every reply at once (a large logit bias on the tiny model's end-of-text token, 2):
 * the tiny model's gibberish otherwise runs until its context is full (Codex sends no output
 * limit), or, cut at a limit, Claude Code reports the cut reply as an error.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT, testPath } from '../support/prerequisites/engines.ts';
import { runSvcCode, startAgentFleet } from '../support/svc/agent-fleet.ts';
import { GATEWAY_TOKEN } from '../support/svc/gateway-fleet.ts';
import { tempDir } from '../support/svc/svc.ts';

const AGENT_BIN = join(REPO_ROOT, 'node_modules', '.bin');

/** One agent run's ceiling: generous for a loaded machine, and never the thing a test measures. */
const RUN_LIMIT_MS = 300_000;

describe('svc code with the real Claude Code and Codex', () => {
  it('runs each agent through the gateway on the real llama-server; each exits 0', async () => {
    const dir = await tempDir();
    const { daemon, gateway, gatewayUrl } = await startAgentFleet(
      dir,
      '[tiny]\nlogit-bias = 2+100\n',
    );
    // Both agents keep their state under HOME (~/.claude, and Codex's caches): private here.
    const home = join(dir, 'home');
    await mkdir(home);
    const instructions = join(dir, 'instructions.md');
    await writeFile(instructions, 'Reply in one word.\n');

    const code = (args: string[], env: Record<string, string> = {}) =>
      runSvcCode(dir, args, { PATH: testPath(AGENT_BIN), HOME: home, ...env }, RUN_LIMIT_MS);

    // Claude Code with --model on the gateway's generic list: the node sleeps until its request.
    const claude = await code([
      '--agent',
      'claude',
      '--model',
      'tiny',
      '--',
      '-p',
      'say hello',
      '--tools',
      '',
      '--system-prompt',
      'Reply in one word.',
    ]);
    expect(claude.status, `${claude.stdout}\n${claude.stderr}`).toBe(0);
    expect(claude.stderr).toContain(`claude → ${gatewayUrl}/v1`);
    // Claude Code adds `?beta=true`, so the access log quotes the path.
    expect(gateway.stderr()).toMatch(
      /method=POST path="?\/v1\/messages(?:\?[^"\s]*)?"? status=200/,
    );
    const node = (await daemon.call('GET', '/v1/status')).json;
    expect(node['state']).toBe('running');

    // Codex with the project's model, in its non-interactive mode.
    const codex = await code([
      'a.svc',
      '--agent',
      'codex',
      '--',
      'exec',
      '--skip-git-repo-check',
      '-c',
      `model_instructions_file=${JSON.stringify(instructions)}`,
      'say hello',
    ]);
    expect(codex.status, `${codex.stdout}\n${codex.stderr}`).toBe(0);
    expect(codex.stderr).toContain(`codex → ${gatewayUrl}/v1`);
    expect(gateway.stderr()).toMatch(
      /method=POST path="?\/v1\/responses(?:\?[^"\s]*)?"? status=200/,
    );

    // Nothing the gateway answered was an error, and the token never showed.
    expect(gateway.stderr()).not.toMatch(/path="?\/v1\/(?:messages|responses)\S* status=[45]\d\d/);
    expect(`${claude.stdout}${claude.stderr}${codex.stdout}${codex.stderr}`).not.toContain(
      GATEWAY_TOKEN,
    );
  }, 660_000);
});
