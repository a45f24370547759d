/**
 * The daemon's stored deploy config and engine key (spec §2.3, §4.1 rules 1–2), under
 * `<config dir>/daemon/`: `deploy-config.json` and `engine-api-key`, each written atomically,
 * 0600 in a 0700 directory. A new daemon over the same directory serves what was stored.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { Value } from '@sinclair/typebox/value';

import { type DeployConfig, DeployConfigSchema } from '../core/contract/schemas.ts';
import { SvcError } from '../core/errors.ts';
import { writeFileAtomic } from '../core/fs/atomic-write.ts';

export interface StoredDeployment {
  readonly config: DeployConfig;
  readonly hasKey: boolean;
}

export class DeployStore {
  readonly configPath: string;
  /** The stored key: what a body-less start reuses. */
  readonly keyPath: string;
  /** The key file the running engine was pointed at, written fresh for each gated start. */
  readonly runKeyPath: string;

  constructor(daemonDir: string) {
    this.configPath = join(daemonDir, 'deploy-config.json');
    this.keyPath = join(daemonDir, 'engine-api-key');
    this.runKeyPath = join(daemonDir, 'engine-api-key.run');
  }

  async load(): Promise<StoredDeployment | undefined> {
    let text: string;
    try {
      text = await readFile(this.configPath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        return undefined;
      }
      throw error;
    }
    let config: unknown;
    try {
      config = JSON.parse(text);
    } catch {
      throw new SvcError(
        'ERR_DEPLOY_CONFIG',
        `${this.configPath} is not valid JSON; push a new deploy config`,
      );
    }
    if (!Value.Check(DeployConfigSchema, config)) {
      throw new SvcError(
        'ERR_DEPLOY_CONFIG',
        `${this.configPath} is not a valid deploy config; push a new one`,
      );
    }
    return { config, hasKey: await this.readKey().then((key) => key !== undefined) };
  }

  async readKey(): Promise<string | undefined> {
    try {
      return (await readFile(this.keyPath, 'utf8')).trim() || undefined;
    } catch {
      return undefined;
    }
  }

  /** spec §2.3: the key travels with its config; a config without one clears the stored key. */
  async save(config: DeployConfig, key: string | undefined): Promise<void> {
    await writeFileAtomic(this.configPath, `${JSON.stringify(config, null, 2)}\n`);
    if (key === undefined) {
      await rm(this.keyPath, { force: true });
    } else {
      await writeFileAtomic(this.keyPath, `${key}\n`);
    }
  }

  /** Writes the key the next engine reads: exactly `<key>\n`, as llama-server expects. */
  async writeRunKey(key: string): Promise<string> {
    await writeFileAtomic(this.runKeyPath, `${key}\n`);
    return this.runKeyPath;
  }

  async clearRunKey(): Promise<void> {
    await rm(this.runKeyPath, { force: true });
  }
}
