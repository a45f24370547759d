/**
 * The view's keys (spec §1.1 table), one table for both the key handler and the footer, so the
 * footer cannot list a key the view does not handle (docs/design.md "Shape of the code": footer
 * drawn from the key table).
 */
import { decodeWith } from '../../core/view/key-decode.ts';

export type KeyName = 'up' | 'down' | 'pgup' | 'pgdown' | 'f' | 'q' | 'ctrl-c';

export type ViewAction =
  | { readonly type: 'scroll'; readonly lines: number }
  | { readonly type: 'page'; readonly pages: number }
  | { readonly type: 'toggle-follow' }
  | { readonly type: 'quit' };

export interface KeyBinding {
  readonly keys: readonly KeyName[];
  /** Footer text; `following` tells the f key which way it would flip. */
  readonly label: (following: boolean) => string;
  readonly action: (key: KeyName) => ViewAction;
}

export const KEY_TABLE: readonly KeyBinding[] = [
  {
    keys: ['up', 'down'],
    label: () => '↑↓ scroll',
    action: (key) => ({ type: 'scroll', lines: key === 'up' ? 1 : -1 }),
  },
  {
    keys: ['pgup', 'pgdown'],
    label: () => 'pgup/pgdn page',
    action: (key) => ({ type: 'page', pages: key === 'pgup' ? 1 : -1 }),
  },
  {
    keys: ['f'],
    label: (following) => (following ? 'f pause' : 'f follow'),
    action: () => ({ type: 'toggle-follow' }),
  },
  { keys: ['q', 'ctrl-c'], label: () => 'q quit', action: () => ({ type: 'quit' }) },
];

export function actionFor(key: KeyName): ViewAction | undefined {
  return KEY_TABLE.find((binding) => binding.keys.includes(key))?.action(key);
}

export function footer(following: boolean): string {
  return KEY_TABLE.map((binding) => binding.label(following)).join('   ');
}

const SEQUENCES: readonly (readonly [string, KeyName])[] = [
  ['\u001b[A', 'up'],
  ['\u001bOA', 'up'],
  ['\u001b[B', 'down'],
  ['\u001bOB', 'down'],
  ['\u001b[5~', 'pgup'],
  ['\u001b[6~', 'pgdown'],
  ['\u0003', 'ctrl-c'],
  ['f', 'f'],
  ['F', 'f'],
  ['q', 'q'],
  ['Q', 'q'],
];

/** Raw terminal input → the keys the view knows, in order; anything else is ignored. */
export function decodeKeys(input: string): KeyName[] {
  return decodeWith(SEQUENCES, input);
}
