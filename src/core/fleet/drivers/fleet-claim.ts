/**
 * Which gateway runs a fleet's local nodes (docs/design.md D27): one at a time. Every gateway on a
 * machine shares one config dir, so each fleet file gets a state directory of its own there,
 * keyed by the file's real path (two fleets whose nodes are both called `chat` keep apart), and
 * the gateway that runs it holds `gateway.json` in it: its pid and start time, the fleet file,
 * and, once bound, its address. A second gateway over the same fleet file finds a live holder and
 * is refused, naming it, before it listens or touches an engine; it takes over only a claim whose
 * gateway is gone, and only then reaps the engines that one left (local-engines.ts).
 *
 * A pid alone does not prove the holder alive: pids are recycled, so the holder's start time
 * (/proc/<pid>/stat, with the pid a unique identity) must match too. Where there is no /proc, a
 * live pid is taken as the holder (it may keep a fleet refused until that process ends).
 */
import { createHash, randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

import { SvcError } from '../../errors.ts';
import { writeFileAtomic } from '../../fs/atomic-write.ts';
import { procStat } from '../../runner/process-group.ts';

/** `<config dir>/fleets/<fleet dir name>-<8 hex digits of the SHA-256 of the file's real path>`. */
export function fleetStateDir(configDir: string, fleetPath: string): string {
  let real = resolve(fleetPath);
  try {
    real = realpathSync(real);
  } catch {
    // Not on disk (a test's fleet): its absolute path keys it as well.
  }
  const name = basename(dirname(real))
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '')
    .slice(0, 40);
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 8);
  return join(configDir, 'fleets', name === '' ? hash : `${name}-${hash}`);
}

/** `gateway.json`: who runs the fleet. */
export interface GatewayClaim {
  readonly pid: number;
  /** The gateway's start time in clock ticks after boot, where /proc tells it. */
  readonly startTime?: number;
  readonly fleet: string;
  readonly startedAt: string;
  /** Where it listens, once it does. */
  readonly url?: string;
}

/** What judging a claim touches; injected so its rules (pid reuse above all) have unit tests. */
export interface ClaimEdges {
  readonly self: () => { readonly pid: number; readonly startTime?: number };
  /** Whether a process with this pid exists (any user's). */
  readonly exists: (pid: number) => boolean;
  readonly startTimeOf: (pid: number) => number | undefined;
  readonly now: () => Date;
}

export const CLAIM_EDGES: ClaimEdges = {
  self: () => {
    const startTime = procStat(process.pid)?.startTime;
    return startTime === undefined ? { pid: process.pid } : { pid: process.pid, startTime };
  },
  exists: (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  },
  startTimeOf: (pid) => procStat(pid)?.startTime,
  now: () => new Date(),
};

/** Whether the claim's gateway still runs: its pid lives and, where known, started when it did. */
export function claimHolderAlive(claim: GatewayClaim, edges: ClaimEdges): boolean {
  if (!Number.isInteger(claim.pid) || claim.pid <= 0 || !edges.exists(claim.pid)) {
    return false;
  }
  if (claim.startTime === undefined) {
    return true;
  }
  const startTime = edges.startTimeOf(claim.pid);
  return startTime === undefined || startTime === claim.startTime;
}

export interface FleetClaim {
  readonly path: string;
  /** Adds the address the gateway bound, for the message a second gateway gets. */
  bound(url: string): Promise<void>;
  /** Gives the fleet up, if the claim is still this gateway's. */
  release(): Promise<void>;
}

function parseClaim(text: string | undefined): GatewayClaim | undefined {
  try {
    const claim = JSON.parse(text ?? '') as Partial<GatewayClaim> | null;
    return typeof claim?.pid === 'number' ? (claim as GatewayClaim) : undefined;
  } catch {
    return undefined;
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Writes `text` at `path` only if nothing is there: complete or not at all (link is atomic). */
async function createExclusive(path: string, text: string): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      return false;
    }
    throw new SvcError('ERR_STATE_WRITE', `cannot write ${path} (${(error as Error).message})`, {
      cause: error,
    });
  } finally {
    await rm(temp, { force: true });
  }
}

function refusal(held: GatewayClaim, fleetPath: string, nodes: readonly string[]): SvcError {
  const where = held.url === undefined ? '' : `, listening on ${held.url}`;
  return new SvcError(
    'ERR_FLEET_IN_USE',
    `the local nodes ${nodes.join(', ')} of ${fleetPath} are already run by another gateway (pid ${held.pid}${where}, since ${held.startedAt}): stop that gateway first (Ctrl+C where it runs, or kill ${held.pid}), or use it; nothing was started or stopped`,
  );
}

/**
 * Claims the fleet's state directory for this gateway, or throws ERR_FLEET_IN_USE naming the
 * live gateway that holds it. A claim whose gateway is gone is removed and taken (it is read
 * again just before, so a claim written meanwhile by another gateway is left alone).
 */
export async function claimFleet(
  stateDir: string,
  fleetPath: string,
  nodes: readonly string[],
  edges: ClaimEdges = CLAIM_EDGES,
): Promise<FleetClaim> {
  const path = join(stateDir, 'gateway.json');
  const self = edges.self();
  let claim: GatewayClaim = { ...self, fleet: fleetPath, startedAt: edges.now().toISOString() };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (await createExclusive(path, `${JSON.stringify(claim)}\n`)) {
      const ours = (held: GatewayClaim | undefined): boolean =>
        held?.pid === self.pid && held.startTime === self.startTime;
      return {
        path,
        bound: async (url) => {
          if (ours(parseClaim(await readText(path)))) {
            claim = { ...claim, url };
            await writeFileAtomic(path, `${JSON.stringify(claim)}\n`);
          }
        },
        release: async () => {
          if (ours(parseClaim(await readText(path)))) {
            await rm(path, { force: true });
          }
        },
      };
    }
    const text = await readText(path);
    const held = parseClaim(text);
    if (held !== undefined && claimHolderAlive(held, edges)) {
      throw refusal(held, fleetPath, nodes);
    }
    if ((await readText(path)) === text) {
      await rm(path, { force: true });
    }
  }
  const held = parseClaim(await readText(path));
  throw held === undefined
    ? new SvcError('ERR_FLEET_IN_USE', `cannot claim ${path}: other gateways keep writing it`)
    : refusal(held, fleetPath, nodes);
}
