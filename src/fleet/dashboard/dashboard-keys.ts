/**
 * The dashboard's keys, one table for the handler and the footer (as the serve view's), so the
 * footer lists only what the current screen can do. The original's keys are kept where it had
 * them: enter, s, x, q, and esc back from the detail. `f` forces a stop (docs/design.md D28, D33)
 * only after `y` confirms it: a forced stop cuts the node's requests; while it asks, `y` and `n`
 * (or esc) are the only keys.
 */
import { decodeWith } from '../../core/view/key-decode.ts';

export type DashboardKey =
  'up' | 'down' | 'enter' | 'esc' | 's' | 'x' | 'f' | 'y' | 'n' | 'q' | 'ctrl-c';

export type DashboardAction =
  | { readonly type: 'select'; readonly by: number }
  | { readonly type: 'detail'; readonly open: boolean }
  | { readonly type: 'start' | 'stop' | 'force-stop' | 'confirm' | 'cancel' | 'quit' };

/** The screens keys work on; `confirm`: a forced stop asks before it is done. */
export type DashboardScreen = 'list' | 'detail' | 'confirm';

interface Binding {
  readonly keys: readonly DashboardKey[];
  readonly label: string;
  /** Which screens the key works on. */
  readonly on: readonly DashboardScreen[];
  readonly action: (key: DashboardKey) => DashboardAction;
}

const BINDINGS: readonly Binding[] = [
  {
    keys: ['up', 'down'],
    label: '↑↓ select',
    on: ['list'],
    action: (key) => ({ type: 'select', by: key === 'up' ? -1 : 1 }),
  },
  {
    keys: ['enter'],
    label: 'enter detail',
    on: ['list'],
    action: () => ({ type: 'detail', open: true }),
  },
  {
    keys: ['esc'],
    label: 'esc back',
    on: ['detail'],
    action: () => ({ type: 'detail', open: false }),
  },
  { keys: ['s'], label: 's start', on: ['list', 'detail'], action: () => ({ type: 'start' }) },
  { keys: ['x'], label: 'x stop', on: ['list', 'detail'], action: () => ({ type: 'stop' }) },
  {
    keys: ['f'],
    label: 'f force stop',
    on: ['list', 'detail'],
    action: () => ({ type: 'force-stop' }),
  },
  { keys: ['y'], label: 'y yes', on: ['confirm'], action: () => ({ type: 'confirm' }) },
  { keys: ['n', 'esc'], label: 'n no', on: ['confirm'], action: () => ({ type: 'cancel' }) },
  {
    keys: ['q', 'ctrl-c'],
    label: 'q quit',
    on: ['list', 'detail', 'confirm'],
    action: () => ({ type: 'quit' }),
  },
];

export function dashboardAction(
  key: DashboardKey,
  screen: DashboardScreen,
): DashboardAction | undefined {
  return BINDINGS.find(
    (binding) => binding.keys.includes(key) && binding.on.includes(screen),
  )?.action(key);
}

export function dashboardFooter(screen: DashboardScreen): string {
  return BINDINGS.filter((binding) => binding.on.includes(screen))
    .map((binding) => binding.label)
    .join('   ');
}

const SEQUENCES: readonly (readonly [string, DashboardKey])[] = [
  ['\u001b[A', 'up'],
  ['\u001bOA', 'up'],
  ['\u001b[B', 'down'],
  ['\u001bOB', 'down'],
  ['\r', 'enter'],
  ['\n', 'enter'],
  ['\u0003', 'ctrl-c'],
  ['s', 's'],
  ['S', 's'],
  ['x', 'x'],
  ['X', 'x'],
  ['f', 'f'],
  ['F', 'f'],
  ['y', 'y'],
  ['Y', 'y'],
  ['n', 'n'],
  ['N', 'n'],
  ['q', 'q'],
  ['Q', 'q'],
];

/** Raw input → keys; a lone ESC (not the start of a sequence) is the esc key. */
export function decodeDashboardKeys(input: string): DashboardKey[] {
  if (input === '\u001b') {
    return ['esc'];
  }
  return decodeWith(SEQUENCES, input);
}
