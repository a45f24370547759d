/**
 * The real llama-server engines on the process table (Linux /proc), for the scheduling
 * end-to-end tests (docs/design.md D26, D27): which nodes have a live engine now, told apart by the
 * process that runs it (a daemon's PID) or, under a gateway that runs local nodes itself, by the
 * engine's own `--alias`; and a watch that samples that until stopped, recording every sample in
 * which more than one node had an engine (what a group of one must never show).
 */
import { readFileSync } from 'node:fs';

import { onTestFinished } from 'vitest';

import { processTree } from './process-tree.ts';

/** The argv of a live llama-server (the engine watchdog names it in its argv too: not it). */
function engineArgv(pid: number): string[] | undefined {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.some((arg) => arg.endsWith('llama-server')) &&
      !argv.some((arg) => arg.includes('watchdog'))
      ? argv
      : undefined;
  } catch {
    return undefined;
  }
}

export interface LiveEngine {
  readonly pid: number;
  /** Its `--alias` (the name it serves), when its command line gives one. */
  readonly alias?: string;
}

/** Every live llama-server under `root` (root included), with the name it serves. */
export function enginesUnder(root: number): LiveEngine[] {
  return processTree(root).flatMap((pid) => {
    const argv = engineArgv(pid);
    if (argv === undefined) {
      return [];
    }
    const alias = argv[argv.lastIndexOf('--alias') + 1];
    return [argv.includes('--alias') && alias !== undefined ? { pid, alias } : { pid }];
  });
}

/** The names of the nodes whose daemon (by PID) has a live engine under it now. */
export function nodesWithEngines(daemons: Readonly<Record<string, number>>): string[] {
  return Object.entries(daemons)
    .filter(([, pid]) => enginesUnder(pid).length > 0)
    .map(([name]) => name);
}

/**
 * The names of the local nodes (docs/design.md D27) with a live engine under the gateway
 * `gatewayPid` now: `aliases` maps each node to the name its engine serves.
 */
export function localNodesWithEngines(
  gatewayPid: number,
  aliases: Readonly<Record<string, string>>,
): string[] {
  const serving = new Set(enginesUnder(gatewayPid).map((engine) => engine.alias));
  return Object.entries(aliases)
    .filter(([, alias]) => serving.has(alias))
    .map(([name]) => name);
}

export interface EngineWatch {
  /** Every sample in which more than one node had an engine: which nodes. */
  readonly overlaps: string[][];
  /** How many samples found at least one engine, and how many were taken. */
  readonly busySamples: number;
  readonly samples: number;
  stop(): void;
}

/** Samples `running()` (the nodes with an engine) every `everyMs` until stopped or the test ends. */
export function watchEngines(running: () => string[], everyMs = 20): EngineWatch {
  const watch = { overlaps: [] as string[][], busySamples: 0, samples: 0 };
  const timer = setInterval(() => {
    const now = running();
    watch.samples += 1;
    watch.busySamples += now.length > 0 ? 1 : 0;
    if (now.length > 1) {
      watch.overlaps.push(now);
    }
  }, everyMs);
  const stop = (): void => {
    clearInterval(timer);
  };
  onTestFinished(stop);
  return Object.assign(watch, { stop });
}
