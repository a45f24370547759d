/**
 * The serve view's log pane opens on this run's engine only (spec §1.1): `engine.log` is appended
 * across runs, and an earlier engine's last lines (`got SIGTERM`) must not stand where the waiting
 * note belongs. In a real terminal (tmux), with an engine that is silent for a moment and then
 * speaks (the fake engine behind a shim that sleeps first).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { startTmux } from '../support/screens/tmux.ts';
import { FAKE_BIN_DIR, freePort } from '../support/svc/daemon.ts';
import { SVC, tempDir } from '../support/svc/svc.ts';

const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

describe('svc serve view log', () => {
  it("shows the waiting note, then this engine's lines, never an earlier run's", async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, 'Svcfile'),
      `PROVIDER llamacpp\nMODEL org/m\nBASEURL 127.0.0.1:${await freePort()}\n`,
    );
    const config = join(dir, 'config');
    await mkdir(join(config, 'daemon'), { recursive: true });
    await writeFile(
      join(config, 'daemon', 'engine.log'),
      'earlier run: model loaded\nsrv operator(): earlier run got SIGTERM, shutting down\n',
    );
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(
      join(bin, 'llama-server'),
      `#!/bin/sh\nsleep 2\nexec ${quote(join(FAKE_BIN_DIR, 'llama-server'))} "$@"\n`,
      { mode: 0o755 },
    );
    const env = { PATH: `${bin}:${process.env['PATH'] ?? ''}`, SVC_CONFIG_DIR: config, HOME: dir };
    const assignments = Object.entries(env).map(([key, value]) => `${key}=${quote(value)}`);
    const term = await startTmux(
      `env ${assignments.join(' ')} ${quote(process.execPath)} ${quote(SVC)} serve ${quote(dir)}; echo "svc exited $?"`,
      100,
      24,
    );

    const waiting = await term.waitFor(/the engine has written nothing yet/);
    expect(waiting).not.toContain('earlier run');
    const speaking = await term.waitFor(/fake-engine argv/);
    expect(speaking).not.toContain('earlier run');
    await term.keys('q');
    expect(await term.waitFor(/svc exited \d+/)).toContain('svc exited 0');
  });
});
