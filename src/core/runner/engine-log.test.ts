import { appendFile, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  completeUtf8Length,
  DEFAULT_LOG_SLICE,
  logQueryOf,
  MAX_LOG_SLICE,
  readLogSlice,
} from './engine-log.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-log-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readLogSlice', () => {
  it('reports a missing log as missing, distinct from an empty one', async () => {
    const path = join(dir, 'none.log');
    expect(await readLogSlice(path)).toEqual({
      content: '',
      nextOffset: 0,
      size: 0,
      path,
      missing: true,
    });
    const empty = join(dir, 'empty.log');
    await writeFile(empty, '');
    expect(await readLogSlice(empty)).toEqual({ content: '', nextOffset: 0, size: 0, path: empty });
  });

  it('reads from an offset and resumes with nextOffset without overlap', async () => {
    const path = join(dir, 'resume.log');
    await writeFile(path, 'one\ntwo\n');
    const first = await readLogSlice(path, { offset: 0 });
    expect(first).toEqual({ content: 'one\ntwo\n', nextOffset: 8, size: 8, path });
    await appendFile(path, 'three\n');
    const second = await readLogSlice(path, { offset: first.nextOffset });
    expect(second).toEqual({ content: 'three\n', nextOffset: 14, size: 14, path });
    expect(await readLogSlice(path, { offset: 14 })).toEqual({
      content: '',
      nextOffset: 14,
      size: 14,
      path,
    });
  });

  it('honours limit and pages through the file', async () => {
    const path = join(dir, 'page.log');
    await writeFile(path, 'abcdefghij');
    const first = await readLogSlice(path, { offset: 0, limit: 4 });
    expect(first.content).toBe('abcd');
    const second = await readLogSlice(path, { offset: first.nextOffset, limit: 4 });
    expect(second.content).toBe('efgh');
    expect(second.nextOffset).toBe(8);
  });

  it('reads the tail without an offset, cut at a line start', async () => {
    const path = join(dir, 'tail.log');
    await writeFile(path, 'alpha\nbeta\ngamma\n');
    const tail = await readLogSlice(path, { limit: 9 });
    expect(tail).toEqual({ content: 'gamma\n', nextOffset: 17, size: 17, path });
  });

  it('returns the tail with staleOffset when the offset is beyond the end', async () => {
    const path = join(dir, 'stale.log');
    await writeFile(path, 'short\n');
    expect(await readLogSlice(path, { offset: 1000 })).toEqual({
      content: 'short\n',
      nextOffset: 6,
      size: 6,
      path,
      staleOffset: true,
    });
  });

  it('caps the slice at 256 KiB and defaults to 64 KiB', async () => {
    const path = join(dir, 'big.log');
    await writeFile(path, 'x'.repeat(MAX_LOG_SLICE * 2));
    expect(
      (await readLogSlice(path, { offset: 0, limit: 10 * MAX_LOG_SLICE })).content.length,
    ).toBe(MAX_LOG_SLICE);
    expect((await readLogSlice(path, { offset: 0 })).content.length).toBe(DEFAULT_LOG_SLICE);
  });

  it('never splits a UTF-8 character at the end of a slice', async () => {
    const path = join(dir, 'utf8.log');
    await writeFile(path, 'aé€😀');
    // bytes: a(1) é(2) €(3) 😀(4) = 10
    const first = await readLogSlice(path, { offset: 0, limit: 5 });
    expect(first.content).toBe('aé');
    expect(first.nextOffset).toBe(3);
    const rest = await readLogSlice(path, { offset: first.nextOffset });
    expect(rest.content).toBe('€😀');
  });

  it('costs O(limit) on a log of several hundred MB', async () => {
    const path = join(dir, 'huge.log');
    const handle = await open(path, 'w');
    // A sparse 600 MB file: reading it whole would take seconds and 600 MB of memory.
    await handle.truncate(600 * 1024 * 1024);
    await handle.write('last line\n', 600 * 1024 * 1024);
    await handle.close();
    const before = process.memoryUsage().rss;
    const tail = await readLogSlice(path, { limit: 1024 });
    const middle = await readLogSlice(path, { offset: 300 * 1024 * 1024, limit: 4096 });
    expect(tail.content.endsWith('last line\n')).toBe(true);
    expect(tail.size).toBe(600 * 1024 * 1024 + 10);
    expect(middle.content.length).toBe(4096);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('completeUtf8Length', () => {
  it.each([
    [[0x61], 1],
    [[0x61, 0xc3], 1],
    [[0xc3, 0xa9], 2],
    [[0xe2, 0x82], 0],
    [[0xe2, 0x82, 0xac], 3],
    [[0x61, 0xf0, 0x9f, 0x98], 1],
    [[0xf0, 0x9f, 0x98, 0x80], 4],
    [[], 0],
  ])('%j keeps %i bytes', (bytes, length) => {
    expect(completeUtf8Length(Uint8Array.from(bytes))).toBe(length);
  });
});

describe('logQueryOf', () => {
  it('reads offset and limit, each absent when not asked', () => {
    expect(logQueryOf({})).toEqual({ read: {} });
    expect(logQueryOf({ offset: '0', limit: '1' })).toEqual({ read: { offset: 0, limit: 1 } });
    expect(logQueryOf({ limit: '999999999' })).toEqual({ read: { limit: 999_999_999 } });
  });

  it.each([
    [{ offset: '-1' }, 'offset must be at least 0'],
    [{ limit: '0' }, 'limit must be at least 1'],
    [{ offset: '1e3' }, 'offset must be a whole number'],
    [{ offset: '' }, 'offset must be a whole number'],
    [{ limit: '99999999999999999999' }, 'limit must be a whole number'],
    [{ offset: ['1', '2'] }, 'offset must be a whole number'],
  ])('refuses %j (docs/design.md D11)', (query, refusal) => {
    expect(logQueryOf(query)).toEqual({ refusal });
  });
});
