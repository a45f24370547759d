/**
 * What the gateway's metrics cost a request: the one GatewayMetrics.record() call each request
 * makes at its end (src/gateway/metrics/gateway-metrics.ts), timed over many calls in batches, with the
 * label children already created as they are after a gateway's first few requests. CPU time per
 * call is robust to a shared machine in a way a proxied round trip is not, so this is set beside
 * the gateway section's added latency rather than read from it.
 */
import { GatewayMetrics, type RequestFacts } from '../src/gateway/metrics/gateway-metrics.ts';

export interface RecordCost {
  /** Median of the batches, nanoseconds of CPU time per record() call. */
  nsPerCall: number;
  calls: number;
  batches: number;
}

export function benchRecordCost(batches = 9, callsPerBatch = 200_000): RecordCost {
  const metrics = new GatewayMetrics(() => Promise.resolve([]));
  // Two nodes, two models, a streamed and a plain route: what a small fleet's traffic looks like.
  const facts: RequestFacts[] = [
    { model: 'qwen', node: 'gpu1', repliedAt: 1 },
    { model: 'llama', node: 'gpu2', repliedAt: 1 },
    { model: 'qwen', node: 'gpu1', repliedAt: 1, upstreamError: true },
    {},
  ];
  const statuses = [200, 200, 502, 404];
  const record = (index: number): void => {
    const which = index & 3;
    metrics.record(
      which === 1 ? '/v1/completions' : '/v1/chat/completions',
      facts[which] ?? {},
      statuses[which] ?? 200,
      0,
      2.5,
      false,
    );
  };
  for (let index = 0; index < callsPerBatch; index += 1) {
    record(index);
  }
  const perCall: number[] = [];
  for (let batch = 0; batch < batches; batch += 1) {
    // CPU time, not wall time: on a shared machine the process waits for a core between calls.
    const started = process.cpuUsage();
    for (let index = 0; index < callsPerBatch; index += 1) {
      record(index);
    }
    const used = process.cpuUsage(started);
    perCall.push(((used.user + used.system) * 1000) / callsPerBatch);
  }
  perCall.sort((a, b) => a - b);
  return {
    nsPerCall: perCall[Math.floor(batches / 2)] ?? Number.NaN,
    calls: batches * callsPerBatch,
    batches,
  };
}
