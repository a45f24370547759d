/**
 * A node's own scheduling settings (docs/design.md D25 `scaleOut`, docs/design.md D26 `idleStop`,
 * `keepWarm`, `group`, `wakeCommand`, `sleepCommand`), read the same way for every node kind, so a
 * new kind gets them by spreading this into its node. Pure: the node's YAML mapping in, the
 * settings as written (defaults are the scheduler's, settings.ts) and problems naming the node and
 * key out. Whether `group` names a declared group is fleet-scheduling.ts's check (it needs the
 * whole file).
 */
import { argvOf, idleStopOf, type Problem, switchOf } from './scheduling-values.ts';

export interface NodeScheduling {
  /**
   * docs/design.md D25: whether this node may be started for load; absent: the file's `scaleOut`.
   */
  readonly scaleOut?: boolean;
  /**
   * docs/design.md D26: stop after this long without work, or `off` even when the file sets one.
   */
  readonly idleStopMs?: number | 'off';
  /** docs/design.md D26: started when the gateway starts, and never idle-stopped. */
  readonly keepWarm?: boolean;
  /** docs/design.md D26: the group (top-level `groups`) whose members share this node's memory. */
  readonly group?: string;
  /**
   * docs/design.md D26: run (no shell) before a wake, to bring the machine up; bounded by
   * --wake-timeout.
   */
  readonly wakeCommand?: readonly string[];
  /** docs/design.md D26: run (no shell) after the node is stopped, to put the machine to sleep. */
  readonly sleepCommand?: readonly string[];
}

export function nodeSchedulingOf(
  raw: Readonly<Record<string, unknown>>,
  name: string,
  problem: Problem,
): NodeScheduling {
  const at = (key: string): string => `node "${name}": ${key}`;
  const scaleOut = switchOf(raw['scaleOut'], at('scaleOut'), problem);
  const idleStopMs = idleStopOf(raw['idleStop'], at('idleStop'), problem);
  const keepWarm = switchOf(raw['keepWarm'], at('keepWarm'), problem);
  const group = raw['group'];
  if (group !== undefined && (typeof group !== 'string' || group === '')) {
    problem(`${at('group')} must name a group declared under groups, not ${JSON.stringify(group)}`);
  }
  const wakeCommand = argvOf(raw['wakeCommand'], at('wakeCommand'), problem);
  const sleepCommand = argvOf(raw['sleepCommand'], at('sleepCommand'), problem);
  return {
    ...(scaleOut === undefined ? {} : { scaleOut }),
    ...(idleStopMs === undefined ? {} : { idleStopMs }),
    ...(keepWarm === undefined ? {} : { keepWarm }),
    ...(typeof group === 'string' && group !== '' ? { group } : {}),
    ...(wakeCommand === undefined ? {} : { wakeCommand }),
    ...(sleepCommand === undefined ? {} : { sleepCommand }),
  };
}
