/** The names a deploy config's model answers to, as the daemon will report them. Pure. */
import type { DeployConfig } from '../../contract/schemas.ts';

/**
 * What a local node's Svcfile runs when no deploy config can name it: `PROVIDER command`
 * (docs/design.md D31; spec §2.7 fixes a deploy config's runner to llamacpp, vllm, mtplx). Only
 * the gateway's own local nodes start it, from the engine spec itself.
 */
export interface CommandConfig {
  readonly runner: 'command';
  readonly modelId?: string;
  readonly servedModelName?: string;
}

/** What a wake would start: a deploy config, or a local node's command. */
export type NodeConfig = DeployConfig | CommandConfig;

/** The model id the daemon will report for a config: llama.cpp keeps the quant on the repo. */
export function reportedModelOf(config: NodeConfig): string {
  const id = config.modelId ?? '';
  return config.runner === 'llamacpp' && config.quant !== undefined ? `${id}:${config.quant}` : id;
}

/** The name requests use for a config: its served name, else its model (docs/design.md D14). */
export function modelNameOf(config: NodeConfig): string {
  return config.servedModelName ?? reportedModelOf(config);
}
