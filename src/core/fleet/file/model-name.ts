/** The names a deploy config's model answers to, as the daemon will report them. Pure. */
import type { DeployConfig } from '../../contract/schemas.ts';

/** The model id the daemon will report for a config: llama.cpp keeps the quant on the repo. */
export function reportedModelOf(config: DeployConfig): string {
  const id = config.modelId ?? '';
  return config.runner === 'llamacpp' && config.quant !== undefined ? `${id}:${config.quant}` : id;
}

/** The name requests use for a config: its served name, else its model (GUIDE D14). */
export function modelNameOf(config: DeployConfig): string {
  return config.servedModelName ?? reportedModelOf(config);
}
