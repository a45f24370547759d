/**
 * The background sampler (spec §3, §8): while an engine runs, one tick every 15 s (the
 * SVC_SAMPLE_INTERVAL_SECONDS setting shortens it for tests) reads the engine's counters, its
 * readiness and the host, and writes them into the state record. Ticks never overlap, every read
 * has a timeout, and nothing here is awaited by an API request except the optional counter
 * refresh a metrics read asks for.
 *
 * Readiness moves faster than the tick: while the engine runs and is not yet ready, its health
 * check is asked every READY_POLL_MS, so a woken node is reported ready (and a gateway request
 * held for it goes through) within a fraction of a second of its engine answering, not at the
 * next tick; once ready, the ticks take over again.
 *
 * docs/design.md D25: the engine's own slot count is asked once per engine start, as soon as it is
 * ready (before it is reported ready, so a ready engine already has its slots), and again at the
 * next tick only when that failed; each scrape's requests in flight become status's `busy`. The
 * counters are read then too: the first tick runs as the engine starts, usually before it
 * answers (a model takes seconds to load), so without that read a ready engine's `busy` stayed
 * unknown (`?/4`) until the next tick, up to an interval later.
 */

import type { EngineDefinition } from '../engines/engine-table.ts';
import { readKeyFile } from '../fs/read-key-file.ts';
import type { StateRecord } from '../state/record.ts';
import { type EngineCounters, READ_TIMEOUT_MS, readEngineCounters } from './engine-counters.ts';
import { readEngineSlots } from './engine-slots.ts';
import { type GpuReading, readGpus } from './gpu.ts';
import { cpuPercent, type CpuTimes, readCpuTimes, readMemory } from './host.ts';
import { checkReadiness } from './readiness.ts';

export const DEFAULT_SAMPLE_INTERVAL_MS = 15_000;
/** A metrics request waits at most this long for fresh counters, then answers with the last ones. */
const REFRESH_TIMEOUT_MS = 2_000;
/** Health-check cadence while running and not ready (at most 500 ms by design; a fifth of that here, cheap while loading). */
export const READY_POLL_MS = 100;
/** A health check while loading answers fast or not at all; this keeps the cadence. */
const READY_POLL_TIMEOUT_MS = 1_000;

export interface SampleTarget {
  readonly engine: EngineDefinition;
  /** `http://host:port` the engine answers on from this machine. */
  readonly baseUrl: string;
  /** File holding the engine key, when the engine is gated (its /metrics wants the key too). */
  readonly keyFile?: string;
}

export interface SamplerOptions {
  readonly record: StateRecord;
  readonly intervalMs: number;
  readonly now?: () => Date;
  readonly readGpus?: () => Promise<GpuReading>;
  readonly checkReadiness?: typeof checkReadiness;
  readonly readEngineSlots?: typeof readEngineSlots;
  readonly readEngineCounters?: typeof readEngineCounters;
  readonly sleep?: (ms: number) => Promise<void>;
}

export class Sampler {
  private target: SampleTarget | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private previousCpu: CpuTimes | undefined;
  private readonly now: () => Date;
  private readonly gpus: () => Promise<GpuReading>;
  private readonly checkReady: typeof checkReadiness;
  private readonly engineSlots: typeof readEngineSlots;
  private readonly counters: typeof readEngineCounters;
  /** The engine whose slots have been read (docs/design.md D25: once per engine start). */
  private slotsOf: SampleTarget | undefined;
  /** Counts readiness answers from the fast poll; a tick's older answer never overwrites a newer one. */
  private readinessSeen = 0;
  /** Counts counter readings stored: one is stored only if none was since it was asked for. */
  private countersSeen = 0;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: SamplerOptions) {
    this.now = options.now ?? (() => new Date());
    this.gpus = options.readGpus ?? (() => readGpus());
    this.checkReady = options.checkReadiness ?? checkReadiness;
    this.engineSlots = options.readEngineSlots ?? readEngineSlots;
    this.counters = options.readEngineCounters ?? readEngineCounters;
    this.sleep =
      options.sleep ??
      ((ms) =>
        new Promise((resolve) => {
          setTimeout(resolve, ms).unref();
        }));
  }

  /** Starts sampling a freshly started engine: a first tick now, then one per interval. */
  begin(target: SampleTarget): void {
    this.end();
    this.target = target;
    void readCpuTimes()
      .catch(() => undefined)
      .then((times) => {
        this.previousCpu = times;
      })
      .then(() => this.tick());
    this.timer = setInterval(() => {
      void this.tick();
    }, this.options.intervalMs);
    this.timer.unref();
    void this.watchReadiness(target);
  }

  /**
   * While `target` is the engine being sampled: whenever it is not ready, ask its health check
   * every READY_POLL_MS until it is. Resolves when the engine is no longer sampled, or at once
   * for an engine with no known health check.
   */
  async watchReadiness(target: SampleTarget): Promise<void> {
    if (target.engine.health === undefined) {
      return;
    }
    while (this.target === target) {
      if (this.options.record.snapshot().ready !== 'ready') {
        const key = await readKeyFile(target.keyFile);
        const ready = await this.checkReady(
          target.engine.health,
          target.baseUrl,
          key,
          READY_POLL_TIMEOUT_MS,
        );
        if (ready === 'ready') {
          await this.readSlots(target, key, READY_POLL_TIMEOUT_MS);
          await this.readCounters(target, key, READY_POLL_TIMEOUT_MS);
        }
        if (this.target !== target) {
          return;
        }
        this.readinessSeen += 1;
        this.options.record.setReady(ready);
        if (ready === 'ready') {
          continue;
        }
      }
      await this.sleep(READY_POLL_MS);
    }
  }

  end(): void {
    if (this.timer !== undefined) {
      clearInterval(this.timer);
    }
    this.timer = undefined;
    this.target = undefined;
  }

  /** A counter read for GET /v1/metrics: fed to the record like a tick's, but only the counters. */
  async refreshTokens(): Promise<void> {
    const target = this.target;
    if (target === undefined) {
      return;
    }
    await this.readCounters(target, await readKeyFile(target.keyFile), REFRESH_TIMEOUT_MS);
  }

  /** One counter read into the record, unless the engine stopped being sampled meanwhile. */
  private async readCounters(
    target: SampleTarget,
    key: string | undefined,
    timeoutMs: number,
  ): Promise<void> {
    const seen = this.countersSeen;
    const counters = await this.counters(target, key, timeoutMs);
    if (this.target === target) {
      this.observeCounters(seen, counters, this.now());
    }
  }

  /**
   * A counter reading into the record, unless another was stored since this one was asked for:
   * a tick's read that failed while the engine loaded, landing after its slow host reads, would
   * otherwise erase the busy read at readiness (docs/design.md D25).
   */
  private observeCounters(seen: number, counters: EngineCounters, at: Date): void {
    if (seen !== this.countersSeen) {
      return;
    }
    this.countersSeen += 1;
    this.options.record.observeTokens(counters.tokens, counters.error, at, counters.busy);
  }

  /** The engine's own slot count into the record, unless this engine's was read already. */
  private async readSlots(
    target: SampleTarget,
    key: string | undefined,
    timeoutMs: number,
  ): Promise<void> {
    const path = target.engine.propsPath;
    if (path === undefined || this.slotsOf === target) {
      return;
    }
    const slots = await this.engineSlots(path, target.baseUrl, key, timeoutMs);
    if (slots !== undefined && this.target === target) {
      this.slotsOf = target;
      this.options.record.setEngineSlots(slots);
    }
  }

  /** One tick; a tick still running when the next is due makes the next one a no-op. */
  tick(): Promise<void> {
    this.ticking ??= this.sampleOnce().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  private async sampleOnce(): Promise<void> {
    const target = this.target;
    if (target === undefined) {
      return;
    }
    const key = await readKeyFile(target.keyFile);
    const seen = this.readinessSeen;
    const counted = this.countersSeen;
    const [counters, ready, host] = await Promise.all([
      this.counters(target, key),
      this.checkReady(target.engine.health, target.baseUrl, key, READ_TIMEOUT_MS),
      this.readHost(),
    ]);
    if (ready !== 'not-ready') {
      await this.readSlots(target, key, READ_TIMEOUT_MS);
    }
    if (this.target !== target) {
      return;
    }
    const { record } = this.options;
    const at = this.now();
    this.observeCounters(counted, counters, at);
    if (seen === this.readinessSeen) {
      record.setReady(ready);
    }
    record.observeHost(host, at);
  }

  private async readHost(): Promise<Parameters<StateRecord['observeHost']>[0]> {
    const errors: string[] = [];
    const [times, memory, gpus] = await Promise.all([
      readCpuTimes().catch((error: unknown) => {
        errors.push(`cpu: ${(error as Error).message}`);
        return undefined;
      }),
      readMemory().catch((error: unknown) => {
        errors.push(`memory: ${(error as Error).message}`);
        return undefined;
      }),
      this.gpus(),
    ]);
    const utilization =
      this.previousCpu !== undefined && times !== undefined
        ? cpuPercent(this.previousCpu, times)
        : undefined;
    if (times !== undefined) {
      this.previousCpu = times;
    }
    if ('error' in gpus) {
      errors.push(gpus.error);
    }
    return {
      ...(utilization === undefined ? {} : { cpu: { utilization } }),
      ...(memory === undefined ? {} : { memory }),
      ...('gpus' in gpus && gpus.gpus.length > 0 ? { gpus: gpus.gpus } : {}),
      errors,
    };
  }
}
