/**
 * Counters and histograms kept as plain numbers, handed to prom-client's registries only to be
 * formatted when scraped. Two reasons not to use prom-client's own Counter and Histogram for a
 * long-lived process's series:
 *
 * - A label child's `inc` or `observe` hashes its labels again on every call (the gateway records
 *   several per request, docs/benchmarks.md); a cell here is a number the caller keeps.
 * - An OpenMetrics scrape renames a counter in place (prom-client strips `_total` from the metric
 *   object's name before printing it the OpenMetrics way), so one object registered in both a
 *   classic and an OpenMetrics registry printed `svc_gateway_requests` without `_total` to every
 *   classic scrape after the first OpenMetrics one. Each registry here gets its own view of the
 *   same numbers, and a view's renaming stays its own.
 *
 * Both print byte for byte what prom-client's own types print for the same values.
 */
import type { Metric, Registry, RegistryContentType } from 'prom-client';

export type Labels = Readonly<Record<string, string>>;

/** One sample as prom-client's registry prints it. */
interface Sample {
  readonly labels: Labels;
  readonly value: number;
  readonly metricName?: string;
  readonly sharedLabels?: Labels;
}

export interface SeriesSpec {
  readonly name: string;
  readonly help: string;
  readonly registers: readonly Registry<RegistryContentType>[];
  readonly labelNames?: readonly string[];
}

/** Registers one view per registry, each printing what `samples` reads at that scrape. */
function register(spec: SeriesSpec, type: 'counter' | 'histogram', samples: () => Sample[]): void {
  for (const registry of spec.registers) {
    const view = {
      name: spec.name,
      help: spec.help,
      type,
      aggregator: 'sum',
      get: () =>
        Promise.resolve({
          name: view.name,
          help: spec.help,
          type,
          aggregator: 'sum',
          values: samples(),
        }),
    };
    // The registry reads only these members (name, type, get) of what it is handed.
    registry.registerMetric(view as unknown as Metric);
  }
}

/** The labels object of `values`, in the series' label order; throws on a wrong count. */
function labelsOf(spec: SeriesSpec, values: readonly string[]): Labels {
  const names = spec.labelNames ?? [];
  if (values.length !== names.length) {
    throw new TypeError(`${spec.name} takes ${names.length} label values, got ${values.length}`);
  }
  return Object.fromEntries(names.map((name, index) => [name, values[index] ?? '']));
}

/** One cell per set of label values, in the order first asked for. */
class Cells<C> {
  private readonly byKey = new Map<string, { readonly labels: Labels; readonly cell: C }>();

  constructor(
    private readonly spec: SeriesSpec,
    private readonly make: () => C,
  ) {
    if ((spec.labelNames ?? []).length === 0) {
      this.cell([]);
    }
  }

  cell(values: readonly string[]): C {
    const key = JSON.stringify(values);
    let found = this.byKey.get(key);
    if (found === undefined) {
      found = { labels: labelsOf(this.spec, values), cell: this.make() };
      this.byKey.set(key, found);
    }
    return found.cell;
  }

  entries(): IterableIterator<{ readonly labels: Labels; readonly cell: C }> {
    return this.byKey.values();
  }
}

export class CounterCell {
  value = 0;

  /** Adds `by`; a negative or non-finite amount is dropped (a counter never goes down). */
  inc(by = 1): void {
    if (by >= 0 && by !== Number.POSITIVE_INFINITY) {
      this.value += by;
    }
  }
}

/**
 * A counter whose values are read when scraped from counts their owner keeps anyway (each value
 * with its label values in the series' label order), so nothing is counted twice.
 */
export function countedElsewhere(
  spec: SeriesSpec,
  read: () => Iterable<readonly [values: readonly string[], value: number]>,
): void {
  register(spec, 'counter', () =>
    Array.from(read(), ([values, value]) => ({ labels: labelsOf(spec, values), value })),
  );
}

/** A counter whose cells count from 0; a series without labels has its one cell at once. */
export class CounterSeries {
  private readonly cells: Cells<CounterCell>;

  constructor(spec: SeriesSpec) {
    const cells = new Cells(spec, () => new CounterCell());
    this.cells = cells;
    register(spec, 'counter', () =>
      Array.from(cells.entries(), ({ labels, cell }) => ({ labels, value: cell.value })),
    );
  }

  /** The cell of these label values (one per set: keep it where it is used often). */
  cell(...values: string[]): CounterCell {
    return this.cells.cell(values);
  }
}

export class HistogramCell {
  /** Observations per bucket, not cumulative; the last one is past every bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = Array.from({ length: bounds.length + 1 }, () => 0);
  }

  /** Counts `value`; a non-finite one is dropped rather than turning the sum into NaN. */
  observe(value: number): void {
    if (!Number.isFinite(value)) {
      return;
    }
    let index = 0;
    while (index < this.bounds.length && value > (this.bounds[index] as number)) {
      index += 1;
    }
    this.counts[index] = (this.counts[index] as number) + 1;
    this.sum += value;
    this.count += 1;
  }
}

/** A histogram with fixed, ascending bucket bounds, printed with cumulative buckets. */
export class HistogramSeries {
  private readonly cells: Cells<HistogramCell>;

  constructor(spec: SeriesSpec & { readonly buckets: readonly number[] }) {
    const { name, buckets } = spec;
    const cells = new Cells(spec, () => new HistogramCell(buckets));
    this.cells = cells;
    register(spec, 'histogram', () => {
      const samples: Sample[] = [];
      for (const { labels: sharedLabels, cell } of cells.entries()) {
        let cumulative = 0;
        buckets.forEach((bound, index) => {
          cumulative += cell.counts[index] as number;
          const labels = { le: String(bound) };
          samples.push({ labels, value: cumulative, metricName: `${name}_bucket`, sharedLabels });
        });
        const { count, sum } = cell;
        samples.push(
          { labels: { le: '+Inf' }, value: count, metricName: `${name}_bucket`, sharedLabels },
          { labels: {}, value: sum, metricName: `${name}_sum`, sharedLabels },
          { labels: {}, value: count, metricName: `${name}_count`, sharedLabels },
        );
      }
      return samples;
    });
  }

  /** The cell of these label values (one per set: keep it where it is used often). */
  cell(...values: string[]): HistogramCell {
    return this.cells.cell(values);
  }
}
