/** The kept series print what prom-client's own types print, in both formats, scrape after scrape. */
import { Counter, Histogram, Registry, type RegistryContentType } from 'prom-client';
import { describe, expect, it } from 'vitest';

import { CounterSeries, HistogramSeries } from './series.ts';

const BUCKETS = [0.005, 0.1, 1, 10];

function registries(): Registry<RegistryContentType>[] {
  const text = new Registry<RegistryContentType>();
  const openMetrics = new Registry<RegistryContentType>();
  openMetrics.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  return [text, openMetrics];
}

describe('CounterSeries and HistogramSeries', () => {
  it('print byte for byte what prom-client prints for the same values, in both formats', async () => {
    const ours = registries();
    const theirs = registries();
    const requests = new CounterSeries({
      name: 'x_requests_total',
      help: 'Requests, by route and class.',
      labelNames: ['route', 'class'],
      registers: ours,
    });
    const plain = new CounterSeries({ name: 'x_plain_total', help: 'Plain.', registers: ours });
    const waits = new HistogramSeries({
      name: 'x_wait_seconds',
      help: 'Waits, by route.',
      labelNames: ['route'],
      buckets: BUCKETS,
      registers: ours,
    });
    const lone = new HistogramSeries({
      name: 'x_lone_seconds',
      help: 'Unlabelled.',
      buckets: BUCKETS,
      registers: ours,
    });
    const requestsP = new Counter({
      name: 'x_requests_total',
      help: 'Requests, by route and class.',
      labelNames: ['route', 'class'],
      registers: theirs,
    });
    const plainP = new Counter({ name: 'x_plain_total', help: 'Plain.', registers: theirs });
    const waitsP = new Histogram({
      name: 'x_wait_seconds',
      help: 'Waits, by route.',
      labelNames: ['route'],
      buckets: BUCKETS,
      registers: theirs,
    });
    const loneP = new Histogram({
      name: 'x_lone_seconds',
      help: 'Unlabelled.',
      buckets: BUCKETS,
      registers: theirs,
    });
    const seen = [0, 0.005, 0.0051, 0.5, 1, 12, 3e-7, 10];
    for (const [index, value] of seen.entries()) {
      const route = index % 3 === 0 ? '/v1/a' : '/v1/"b"\\';
      requests.cell(route, `${index % 2}xx`).inc();
      requestsP.labels(route, `${index % 2}xx`).inc();
      waits.cell(route).observe(value);
      waitsP.labels(route).observe(value);
      lone.cell().observe(value);
      loneP.observe(value);
    }
    plain.cell().inc(2.5);
    plainP.inc(2.5);
    for (const [index, registry] of ours.entries()) {
      expect(await registry.metrics()).toBe(await (theirs[index] as Registry).metrics());
    }
  });

  it('keeps _total in the classic format after an OpenMetrics scrape', async () => {
    const [text, openMetrics] = registries() as [Registry, Registry];
    new CounterSeries({ name: 'x_total', help: 'X.', registers: [text, openMetrics] }).cell().inc();
    const classic = 'x_total 1';
    expect(await text.metrics()).toContain(classic);
    expect(await openMetrics.metrics()).toContain('# TYPE x counter\nx_total 1');
    expect(await text.metrics()).toContain(`# TYPE x_total counter\n${classic}`);
  });

  it('drops what would break a series: a counter going down, a value that is not finite', () => {
    const counter = new CounterSeries({ name: 'x_total', help: 'X.', registers: [] }).cell();
    for (const by of [2, -1, Number.NaN, Number.POSITIVE_INFINITY, 0.5]) {
      counter.inc(by);
    }
    expect(counter.value).toBe(2.5);
    const histogram = new HistogramSeries({
      name: 'x_seconds',
      help: 'X.',
      buckets: BUCKETS,
      registers: [],
    }).cell();
    for (const value of [0.2, Number.NaN, Number.NEGATIVE_INFINITY, 20]) {
      histogram.observe(value);
    }
    expect([histogram.count, histogram.sum, histogram.counts]).toEqual([2, 20.2, [0, 0, 1, 0, 1]]);
  });

  it('refuses a wrong count of label values, naming the series', () => {
    const series = new CounterSeries({
      name: 'x_total',
      help: 'X.',
      labelNames: ['a', 'b'],
      registers: [],
    });
    expect(() => series.cell('only')).toThrow('x_total takes 2 label values, got 1');
  });
});
