/**
 * The view's log reader (spec §1.1): the engine log is appended across runs and never rotated, so
 * the view reads from where this run's lines begin: an earlier engine's last words never show,
 * and until this engine writes, the pane has nothing (its waiting note).
 */
import { appendFile, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { appendLines, EMPTY_PANE } from './log-pane.ts';
import { LogTail } from './log-tail.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-view-log-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const EARLIER_RUN = 'main: loaded\nsrv operator(): got SIGTERM, shutting down\n';

async function logFrom(name: string, earlier: string): Promise<{ path: string; from: number }> {
  const path = join(dir, name);
  await writeFile(path, earlier);
  return { path, from: (await stat(path)).size };
}

describe('LogTail', () => {
  it("shows none of an earlier run's lines: the pane keeps its waiting note until this engine writes", async () => {
    const { path, from } = await logFrom('earlier.log', EARLIER_RUN);
    const tail = new LogTail(path, from);
    const first = await tail.read();
    expect(first).toEqual({ lines: [], exists: true });
    // The pane has read, found nothing of this run: "the engine has written nothing yet".
    expect(appendLines(EMPTY_PANE, first.lines, 10)).toEqual({ ...EMPTY_PANE, started: true });

    await appendFile(path, 'this run: starting\nthis run: listening\n');
    expect(await tail.read()).toEqual({
      lines: ['this run: starting', 'this run: listening'],
      exists: true,
    });
  });

  it("starts at this run's first line when it had written before the first read", async () => {
    const { path, from } = await logFrom('written.log', EARLIER_RUN);
    await appendFile(path, 'this run: starting\n');
    expect((await new LogTail(path, from).read()).lines).toEqual(['this run: starting']);
  });

  it("takes only the tail of a long first stretch, still none of the earlier run's", async () => {
    const { path, from } = await logFrom('long.log', EARLIER_RUN);
    const lines = Array.from(
      { length: 4000 },
      (_, index) => `this run: line ${index} ${'x'.repeat(40)}`,
    );
    await appendFile(path, `${lines.join('\n')}\n`);
    const read = (await new LogTail(path, from).read()).lines;
    expect(read.length).toBeGreaterThan(100);
    expect(read.length).toBeLessThan(lines.length);
    expect(read.at(-1)).toBe(lines.at(-1));
    expect(read.every((line) => line.startsWith('this run: line '))).toBe(true);
  });

  it('reads a log replaced by a shorter one from its start', async () => {
    const { path, from } = await logFrom('replaced.log', EARLIER_RUN);
    await writeFile(path, 'new: one\n');
    expect((await new LogTail(path, from).read()).lines).toEqual(['new: one']);
  });
});
