/** The model picker: running models first, sleeping ones marked, answers by number or id. */
import { PassThrough } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { parseChoice, pickerOrder, pickModel, renderPicker } from './model-picker.ts';

const listed = [
  { id: 'big', state: 'asleep' },
  { id: 'tiny', state: 'running' },
  { id: 'mid', state: 'loading' },
  { id: 'other' },
];

describe('model picker', () => {
  it('orders running, loading, then the rest, keeping the gateway order within each', () => {
    expect(pickerOrder(listed).map((model) => model.id)).toEqual(['tiny', 'mid', 'big', 'other']);
  });

  it('numbers the models and marks the sleeping and loading ones', () => {
    expect(renderPicker(pickerOrder(listed), 'codex')).toBe(
      [
        'Models for codex on the fleet:',
        '  1) tiny',
        '  2) mid    (loading)',
        '  3) big    (asleep: the first request wakes a node)',
        '  4) other',
        '',
      ].join('\n'),
    );
  });

  it('takes a number, an exact id, or Enter for the first; anything else is no answer', () => {
    expect(parseChoice('2', listed)).toBe(1);
    expect(parseChoice(' other ', listed)).toBe(3);
    expect(parseChoice('', listed)).toBe(0);
    expect(parseChoice('5', listed)).toBeUndefined();
    expect(parseChoice('0', listed)).toBeUndefined();
    expect(parseChoice('tin', listed)).toBeUndefined();
  });

  it('asks again after a wrong answer and refuses when the input ends', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
    const chosen = pickModel(listed, 'claude', input, output);
    input.write('9\n');
    input.write('3\n');
    expect(await chosen).toBe('big');
    expect(shown).toContain('"9" is not one of the 4 models listed');

    const ended = new PassThrough();
    const none = pickModel(listed, 'claude', ended, new PassThrough());
    ended.end();
    await expect(none).rejects.toThrow('no model chosen: pass --model <id>');
  });
});
