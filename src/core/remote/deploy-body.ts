/**
 * The DeployConfig a remote environment is deployed with (spec §2.7), pure: a node's Svcfile
 * config plus the fleet file's `instance-type`, with a `spinloopVersion` pin stored and sent
 * without the leading `v` of a release tag, and an instance type that is `family.size`.
 */
import { instanceTypeProblem } from '../contract/deploy-config.ts';
import type { DeployConfig } from '../contract/schemas.ts';
import { SvcError } from '../errors.ts';

/** spec §2.7: `v1.4.0` and `1.4.0` pin the same release; empty means the latest. */
export function normaliseVersionPin(pin: string): string {
  return pin.trim().replace(/^v(?=\d)/, '');
}

export function deployBody(
  node: string,
  config: DeployConfig,
  instanceType: string | undefined,
): DeployConfig {
  const type = instanceType ?? config.instanceType;
  const problem = type === undefined ? undefined : instanceTypeProblem(type);
  if (problem !== undefined) {
    throw new SvcError('ERR_DEPLOY_CONFIG', `node "${node}": instanceType ${problem}`);
  }
  const pin =
    config.spinloopVersion === undefined ? '' : normaliseVersionPin(config.spinloopVersion);
  // A remote engine's path is the one its control plane publishes (spec §2.2), never ours to send.
  const { spinloopVersion: _version, instanceType: _type, enginePath: _path, ...rest } = config;
  return {
    ...rest,
    ...(pin === '' ? {} : { spinloopVersion: pin }),
    ...(type === undefined || type === '' ? {} : { instanceType: type }),
  };
}
