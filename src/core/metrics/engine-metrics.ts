/**
 * Engine counters → TokenStats (spec §2.5), per Prometheus dialect. From each engine's metrics
 * documentation: llama-server names its series `llamacpp:*` with no labels and has no request
 * counter; vLLM labels every series (summed here) and counts finished requests by reason. Pure.
 */
import type { TokenStats } from '../contract/schemas.ts';
import type { PromSample } from './prometheus.ts';

export type MetricsDialect = 'llamacpp' | 'vllm';

interface DialectNames {
  readonly running: readonly string[];
  /**
   * docs/design.md D25 `busy`: requests the engine is decoding now (queued ones are not in a slot
   * yet).
   */
  readonly busy: string;
  readonly prompt: string;
  readonly generation: string;
  readonly requests?: string;
  /** Cumulative counters summed into `counter`, the activity signal. */
  readonly cumulative: readonly string[];
}

const NAMES: Readonly<Record<MetricsDialect, DialectNames>> = {
  llamacpp: {
    running: ['llamacpp:requests_processing', 'llamacpp:requests_deferred'],
    busy: 'llamacpp:requests_processing',
    prompt: 'llamacpp:prompt_tokens_total',
    generation: 'llamacpp:tokens_predicted_total',
    cumulative: [
      'llamacpp:prompt_tokens_total',
      'llamacpp:tokens_predicted_total',
      'llamacpp:n_decode_total',
    ],
  },
  vllm: {
    running: ['vllm:num_requests_running', 'vllm:num_requests_waiting'],
    busy: 'vllm:num_requests_running',
    prompt: 'vllm:prompt_tokens_total',
    generation: 'vllm:generation_tokens_total',
    requests: 'vllm:request_success_total',
    cumulative: [
      'vllm:prompt_tokens_total',
      'vllm:generation_tokens_total',
      'vllm:request_success_total',
    ],
  },
};

/** Sum of every finite sample of `name` across label sets; undefined when there is none. */
function sum(samples: readonly PromSample[], name: string): number | undefined {
  let total: number | undefined;
  for (const sample of samples) {
    if (sample.name === name && Number.isFinite(sample.value)) {
      total = (total ?? 0) + sample.value;
    }
  }
  return total === undefined ? undefined : Math.trunc(total);
}

function sumAll(samples: readonly PromSample[], names: readonly string[]): number | undefined {
  const parts = names
    .map((name) => sum(samples, name))
    .filter((value): value is number => value !== undefined);
  return parts.length === 0 ? undefined : parts.reduce((a, b) => a + b, 0);
}

/** TokenStats from a scrape, or undefined when it holds none of the dialect's series. */
export function tokenStats(
  dialect: MetricsDialect,
  samples: readonly PromSample[],
): TokenStats | undefined {
  const names = NAMES[dialect];
  const running = sumAll(samples, names.running);
  const counter = sumAll(samples, names.cumulative);
  const promptTokens = sum(samples, names.prompt);
  const generationTokens = sum(samples, names.generation);
  const requests = names.requests === undefined ? undefined : sum(samples, names.requests);
  if (
    [running, counter, promptTokens, generationTokens, requests].every(
      (value) => value === undefined,
    )
  ) {
    return undefined;
  }
  return {
    ...(running === undefined ? {} : { running }),
    ...(counter === undefined ? {} : { counter }),
    ...(promptTokens === undefined ? {} : { promptTokens }),
    ...(generationTokens === undefined ? {} : { generationTokens }),
    ...(requests === undefined ? {} : { requests }),
  };
}

/**
 * docs/design.md D25: the requests in the engine's slots at this scrape, or undefined when not
 * reported.
 */
export function busyOf(
  dialect: MetricsDialect,
  samples: readonly PromSample[],
): number | undefined {
  const busy = sum(samples, NAMES[dialect].busy);
  return busy === undefined ? undefined : Math.max(0, busy);
}
