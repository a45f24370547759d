/**
 * docs/gateway.md's opening example ("One box: `svc up`") laid out for a test: the fleet file and
 * the three Svcfiles exactly as the page shows them, in a directory standing for the page's
 * /home/ada/models, each MODEL swapped for the tiny test model (so the three local nodes serve
 * it under their own aliases), `svc` and the recording fake agents first on PATH. The page's
 * fixed port (4000) and paths become the test's own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { FAKE_AGENT_DIR } from '../fakes/fake-agent.ts';
import { freePort } from '../http/net.ts';
import { writeTinyModel } from '../models/tiny-model.ts';
import { REPO_ROOT, testPath } from '../prerequisites/engines.ts';
import { tempDir } from '../processes/temp-dir.ts';
import { ConsoleSession, titledBlocks } from './console-examples.ts';

export const GATEWAY_MD = join(REPO_ROOT, 'docs', 'gateway.md');
export const ONE_BOX = '## One box: `svc up`';

export interface OneBox {
  readonly dir: string;
  readonly configDir: string;
  /** The tiny model every node serves (the Svcfiles ask for 32k: it is trained for that). */
  readonly model: string;
  /** Where the fake agent writes what `svc code` handed it. */
  readonly agentRecord: string;
  /** The gateway's port: the page's 4000. */
  readonly port: number;
  /** The files the page shows, by their title, as written. */
  readonly files: ReadonlyMap<string, string>;
  readonly session: ConsoleSession;
}

export async function oneBox(): Promise<OneBox> {
  const dir = await tempDir('svc-one-box-');
  const configDir = join(dir, 'config');
  const model = await writeTinyModel(join(dir, 'tiny.gguf'), { contextLength: 32_768 });
  const agentRecord = join(dir, 'agent.json');
  const port = await freePort();
  const bin = join(dir, 'bin');
  await mkdir(bin);
  await symlink(join(REPO_ROOT, 'dist', 'cli.js'), join(bin, 'svc'));
  const env = {
    ...process.env,
    PATH: `${bin}:${testPath(FAKE_AGENT_DIR)}`,
    SVC_CONFIG_DIR: configDir,
    SVC_API_TOKEN: '',
    SVC_LOG_LEVEL: '',
    SVC_ALIAS: '',
    FAKE_AGENT_RECORD: agentRecord,
  };
  const session = new ConsoleSession(
    dir,
    env,
    new Map([
      ['/home/ada/models', dir],
      ['/home/ada/.config/svc', configDir],
      ['4000', String(port)],
    ]),
  );
  const files = new Map<string, string>();
  for (const [name, body] of titledBlocks(GATEWAY_MD, ONE_BOX)) {
    const text = session.substitute(body).replace(/^MODEL .*$/m, `MODEL ${model}`);
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
    files.set(name, text);
  }
  return { dir, configDir, model, agentRecord, port, files, session };
}

/** The live engine processes serving `model`: its path in their argv, watchdogs left out. */
export function enginesServing(model: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // ended while we looked
    }
    if (argv.includes(model) && !argv.some((arg) => arg.endsWith('watchdog.js'))) {
      pids.push(Number(entry));
    }
  }
  return pids;
}
