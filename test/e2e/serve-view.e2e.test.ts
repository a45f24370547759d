/**
 * `svc serve` in a real terminal (tmux) on the real llama-server: the view appears with metrics
 * and a filling log; scroll, page and f behave as spec §1.1's table says; a resize never leaves a
 * line wider than the screen; q stops the engine and serve exits 0. A crashing engine (fake)
 * closes the view and serve exits with its status.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { ENGINE_BIN_DIR, REPO_ROOT } from '../support/prerequisites/engines.ts';
import {
  dividerRows,
  filled,
  logGrown,
  logRows,
  metricsRedrawn,
  sameRows,
  showingTail,
  wholeFrame,
} from '../support/screens/serve-screen.ts';
import { startTmux } from '../support/screens/tmux.ts';
import { alive, FAKE_BIN_DIR, freePort, waitForStatus } from '../support/svc/daemon.ts';
import { SVC, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const FOOTER = '↑↓ scroll   pgup/pgdn page   f pause   q quit';
const COLUMNS = 100;
const ROWS = 30;

/** A shell command line running the built svc with `env`, then printing its exit status. */
function serveCommand(args: string[], env: Record<string, string>): string {
  const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
  const assignments = Object.entries(env).map(([key, value]) => `${key}=${quote(value)}`);
  return `env ${assignments.join(' ')} ${quote(process.execPath)} ${quote(SVC)} ${args.map(quote).join(' ')}; echo "svc exited $?"`;
}

async function childrenOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return text.split(' ').filter(Boolean).map(Number);
}

/** The PIDs below `pid`, depth first. */
async function descendants(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (const child of await childrenOf(pid)) {
    found.push(child, ...(await descendants(child)));
  }
  return found;
}

async function complete(port: number, tokens = 4): Promise<void> {
  const reply = await fetch(`http://127.0.0.1:${port}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'hello world', max_tokens: tokens }),
  });
  await reply.text();
}

describe('svc serve view in a real terminal', () => {
  it('shows metrics and the log, scrolls, pages, pauses, survives a resize, and quits on q', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    const port = await freePort();
    await writeFile(
      join(dir, 'Svcfile'),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nBASEURL 127.0.0.1:${port}\n`,
    );
    const env = {
      PATH: `${ENGINE_BIN_DIR}:${process.env['PATH'] ?? ''}`,
      SVC_CONFIG_DIR: join(dir, 'config'),
      SVC_SAMPLE_INTERVAL_SECONDS: '0.5',
      HOME: dir,
    };
    const term = await startTmux(serveCommand(['serve', dir], env), COLUMNS, ROWS);
    const log = join(dir, 'config', 'daemon', 'engine.log');
    const rowsNow = async (): Promise<string[]> => logRows(await term.capture());

    // The counters row is there from the first frame (dashes before the first scrape), and the
    // metrics section keeps its height as readings arrive: the log window never moves on its own.
    const first = await term.waitFor(/in flight/);
    let screen = await term.waitFor(/ready[\s\S]*in flight 0/);
    expect(dividerRows(screen)).toEqual(dividerRows(first));
    await waitForStatus(`http://127.0.0.1:${port}/health`, 200);
    const rows = screen.split('\n');
    expect(rows[0]).toContain(`svc serve · ${join(dir, 'Svcfile')}   log: following`);
    expect(screen).toMatch(/running {2}\(up \d+s\) {2}· {2}ready/);
    expect(screen).toContain(`llama.cpp  ${model} as tiny`);
    expect(screen).toMatch(/last active \S+/);
    expect(screen).toMatch(/^CPU {2}[█░]+ +[▁▂▃▄▅▆▇█]+ +\d+%/m);
    expect(screen).toMatch(/^RAM {2}[█░]+ +[▁▂▃▄▅▆▇█]+ +[\d.]+ (MiB|GiB) \/ [\d.]+ GiB/m);
    expect(screen.trimEnd().split('\n').at(-1)?.trim()).toBe(FOOTER);
    expect(screen).toContain('listening on http://127.0.0.1');

    // Fill the log: each completion makes llama-server write several lines.
    for (let request = 0; request < 6; request += 1) {
      await complete(port);
    }
    screen = await term.waitFor(/generated [1-9]/);
    expect(screen).toMatch(/prompt tokens [1-9]/);
    const tail = await showingTail(term, log, COLUMNS);
    expect(filled(tail).at(-1)).toMatch(/release|print_timing|graph/);

    // Up: the window moves one line back.
    await term.keys('Up');
    const scrolled = await eventually(
      rowsNow,
      (now) => sameRows(now.slice(1), tail.slice(0, -1)) && !sameRows(now, tail),
      'the log window one line back from the tail',
      { show: (now) => now.join('\n') },
    );
    // New lines then leave it where it is: once the engine has written them, and the view has
    // read its log since (it reads every 250 ms, and redraws its metrics every second on the
    // same loop: three redraws later it has read them), the window still shows the same lines.
    const logScrolled = await readFile(log, 'utf8');
    await complete(port);
    await logGrown(log, logScrolled);
    await metricsRedrawn(term, 3);
    expect(await rowsNow()).toEqual(scrolled);

    // Page up, then page down and down past the end: back on the tail, which follows again.
    await term.keys('PPage');
    const paged = await eventually(
      rowsNow,
      (now) => !sameRows(now, scrolled),
      'the log window a page back',
      { show: (now) => now.join('\n') },
    );
    expect(filled(paged).length).toBeGreaterThan(0);
    await term.keys('NPage', 'NPage', 'Down', 'Down', 'Down');
    await showingTail(term, log, COLUMNS);
    const logAtTail = await readFile(log, 'utf8');
    await complete(port, 2);
    await logGrown(log, logAtTail);
    const followed = await showingTail(term, log, COLUMNS);
    expect(filled(followed).at(-1)).toMatch(/release|print_timing|graph|stop processing/);

    // f pauses: nothing new is read while the metrics keep refreshing (the redraws below would
    // time out otherwise); f again shows what was written meanwhile.
    await term.keys('f');
    const paused = await term.waitFor(/log: paused/);
    expect(paused.trimEnd().split('\n').at(-1)?.trim()).toBe(
      '↑↓ scroll   pgup/pgdn page   f follow   q quit',
    );
    const frozen = logRows(paused);
    const logBefore = await readFile(log, 'utf8');
    await complete(port, 3);
    await logGrown(log, logBefore);
    const stillPaused = await metricsRedrawn(term, 3);
    expect(logRows(stillPaused)).toEqual(frozen);
    expect(dividerRows(stillPaused)).toEqual(dividerRows(first));
    await term.keys('f');
    const resumed = await showingTail(term, log, COLUMNS);
    expect(resumed).not.toEqual(frozen);
    expect(await term.capture()).toContain('log: following');

    // A resize never leaves a line wider than the screen, and the frame stays whole, once the
    // view has redrawn for the new size.
    await term.resize(44, 14);
    const small = await eventually(
      () => term.capture(),
      (now) => wholeFrame(now, 44, 14),
      'the view redrawn whole at 44×14',
    );
    for (const row of small.split('\n')) {
      expect(Array.from(row).length).toBeLessThanOrEqual(44);
    }
    await term.resize(COLUMNS, ROWS);
    const capture = await eventually(
      () => term.capture(),
      (now) => wholeFrame(now, COLUMNS, ROWS) && now.includes(FOOTER),
      `the view redrawn whole at ${COLUMNS}×${ROWS}`,
    );
    await mkdir(join(REPO_ROOT, '.cache', 'captures'), { recursive: true });
    await writeFile(join(REPO_ROOT, '.cache', 'captures', 'serve-view.txt'), capture);

    // q stops the engine and serve exits 0.
    const processes = await descendants(term.pid);
    expect(processes.length).toBeGreaterThanOrEqual(2);
    await term.keys('q');
    const after = await term.waitFor(/svc exited \d+/);
    expect(after).toContain('svc exited 0');
    expect(after).toContain(
      `llama-server -m ${model} --alias tiny --host 127.0.0.1 --port ${port} --metrics`,
    );
    for (const pid of processes) {
      expect(alive(pid)).toBe(false);
    }
  });

  it('closes the view and exits with the engine status when the engine crashes', async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, 'Svcfile'),
      `PROVIDER llamacpp\nMODEL org/m\nBASEURL 127.0.0.1:${await freePort()}\n`,
    );
    const env = {
      PATH: `${FAKE_BIN_DIR}:${process.env['PATH'] ?? ''}`,
      SVC_CONFIG_DIR: join(dir, 'config'),
      FAKE_ENGINE: 'crash-after:2500',
      HOME: dir,
    };
    const term = await startTmux(serveCommand(['serve', dir], env), 80, 24);
    const view = await term.waitFor(/fake-engine argv/);
    expect(view).toContain('log: following');
    const after = await term.waitFor(/svc exited \d+/);
    expect(after).toContain('svc exited 3');
    expect(after).not.toContain('log: following');
  });

  it('shows a waiting note before the engine has written anything', async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, 'Svcfile'),
      `PROVIDER llamacpp\nMODEL org/m\nBASEURL 127.0.0.1:${await freePort()}\n`,
    );
    // A silent engine: a shell that writes nothing and sleeps.
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'llama-server'), '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
    const env = {
      PATH: `${bin}:${process.env['PATH'] ?? ''}`,
      SVC_CONFIG_DIR: join(dir, 'config'),
      HOME: dir,
    };
    const term = await startTmux(serveCommand(['serve', dir], env), 80, 24);
    const screen = await term.waitFor(/waiting for/);
    expect(screen).toMatch(
      /the engine has written nothing yet; waiting for its first line|waiting for the engine log/,
    );
    await term.keys('q');
    expect(await term.waitFor(/svc exited \d+/)).toContain('svc exited 0');
  });
});
