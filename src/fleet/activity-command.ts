/**
 * `svc fleet activity [-f] [--limit N]` (docs/design.md D29): the last requests the gateway
 * answered, from its `GET /v1/fleet/activity` (the operator's alone), printed like a log, newest
 * last. `-f` follows like `tail -f`: the gateway is read again every second and only the entries
 * not printed yet are printed, until Ctrl+C. `--json` prints the gateway's reply as it came (with
 * `-f`, each new entry as one line of JSON).
 */
import { SvcError } from '../core/errors.ts';
import type { Fleet, Variables } from '../core/fleet/file/fleet-file.ts';
import { everyUntilShutdown } from '../core/signals.ts';
import {
  activityEntries,
  type ActivityEntry,
  activityHead,
  activityLine,
  newEntries,
} from './activity-text.ts';
import type { GetText } from './gateway-readout.ts';
import { readGateway } from './gateway-reads.ts';

/** The gateway keeps this many (docs/design.md D29). */
const ACTIVITY_KEPT = 1_000;
const FOLLOW_POLL_MS = 1_000;

export interface ActivityCommand {
  readonly fleet: Fleet;
  readonly json: boolean;
  readonly follow: boolean;
  /** `--limit` as written. */
  readonly limit: string | undefined;
  readonly write: (text: string) => void;
  readonly variables: readonly Variables[];
  readonly get?: GetText;
  /** Runs the follow loop (core/signals.ts: until SIGINT or SIGTERM); injected by tests. */
  readonly every?: (intervalMs: number, step: () => Promise<void>, first: boolean) => Promise<void>;
}

/** `--limit`: 1 to 1,000; default 100 printed, or every kept entry while following. */
export function activityLimit(written: string | undefined, follow: boolean): number {
  if (written === undefined) {
    return follow ? ACTIVITY_KEPT : 100;
  }
  const limit = Number(written);
  if (!/^\d+$/.test(written) || limit < 1 || limit > ACTIVITY_KEPT) {
    throw new SvcError(
      'ERR_USAGE',
      `--limit must be a whole number from 1 to ${ACTIVITY_KEPT}, not "${written}"`,
    );
  }
  return limit;
}

export async function runActivity(command: ActivityCommand): Promise<number> {
  const shown = activityLimit(command.limit, command.follow);
  // Following reads every kept entry, so a busy second loses none between two reads.
  const asked = command.follow ? ACTIVITY_KEPT : shown;
  const read = async (): Promise<{ body: unknown; entries: ActivityEntry[] }> => {
    const body = await readGateway(
      command.fleet,
      command.variables,
      `/activity?limit=${asked}`,
      command.get,
    );
    return { body, entries: activityEntries(body) };
  };
  if (!command.follow) {
    const first = await read();
    command.write(
      command.json
        ? `${JSON.stringify(first.body, null, 2)}\n`
        : [activityHead(), ...first.entries.toReversed().map(activityLine), ''].join('\n'),
    );
    return 0;
  }
  const print = (entries: readonly ActivityEntry[]): void => {
    for (const entry of entries.toReversed()) {
      command.write(`${command.json ? JSON.stringify(entry) : activityLine(entry)}\n`);
    }
  };
  let seen: readonly ActivityEntry[] | undefined;
  // The first read runs under the signal's listener too: Ctrl+C the moment the first entries show
  // ends the follow cleanly, not through the default action.
  await (command.every ?? everyUntilShutdown)(
    FOLLOW_POLL_MS,
    async () => {
      const fresh = (await read()).entries;
      if (seen === undefined) {
        if (!command.json) {
          command.write(`${activityHead()}\n`);
        }
        print(fresh.slice(0, shown));
      } else {
        print(newEntries(seen, fresh));
      }
      seen = fresh;
    },
    true,
  );
  // docs/design.md D17: a clean signal shutdown exits 0.
  return 0;
}
