/** Reported capacity and the declared group: whole counts only, zero slots and junk are absent. */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../../test/support/project-files/fleet-node.ts';
import { capacityOf, capacityText, declaredGroup } from './capacity.ts';

describe('capacityOf', () => {
  it('keeps whole counts and drops what is not one', () => {
    expect(capacityOf({ slots: 2, busy: 1 })).toEqual({ slots: 2, busy: 1 });
    expect(capacityOf({ slots: 4, busy: 0 })).toEqual({ slots: 4, busy: 0 });
    expect(capacityOf({})).toEqual({});
    expect(capacityOf({ slots: 0, busy: 0 })).toEqual({ busy: 0 });
    expect(capacityOf({ slots: 1.5, busy: -1 })).toEqual({});
    expect(capacityOf({ slots: '2', busy: null })).toEqual({});
  });
});

describe('capacityText', () => {
  it('is busy/slots, with ? for the side not reported', () => {
    expect(capacityText({ slots: 2, busy: 1 })).toBe('1/2');
    expect(capacityText({ slots: 2 })).toBe('?/2');
    expect(capacityText({ busy: 3 })).toBe('3/?');
    expect(capacityText({})).toBe('');
  });
});

describe('declaredGroup', () => {
  it('reads the group a node declares, and nothing else', () => {
    expect(declaredGroup(Object.assign(daemonNode('a'), { group: 'big' }))).toBe('big');
    expect(declaredGroup(daemonNode('a'))).toBeUndefined();
    expect(declaredGroup(Object.assign(daemonNode('a'), { group: 3 }))).toBeUndefined();
  });
});
