/**
 * `svc up` in the output directory of `svc import llama-swap` (docs/import.md), on a port the
 * machine has room for rather than llama-swap's own :8080, with the token the import generated.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { freePort } from '../http/net.ts';
import { testPath } from '../prerequisites/engines.ts';
import { startProcess } from '../processes/processes.ts';
import { SVC } from './svc.ts';

export interface ImportedUp {
  readonly up: ReturnType<typeof startProcess>;
  readonly url: string;
  readonly token: string;
  readonly headers: { readonly authorization: string };
  /** The fleet file as the import wrote it. */
  readonly fleet: string;
}

/** Starts it and waits until it names its local nodes (`nodes`, as its line lists them). */
export async function upImported(
  out: string,
  configDir: string,
  nodes: string,
): Promise<ImportedUp> {
  const port = await freePort();
  const fleet = await readFile(join(out, 'fleet.yaml'), 'utf8');
  await writeFile(
    join(out, 'fleet.yaml'),
    fleet.replace('http://127.0.0.1:8080', `http://127.0.0.1:${port}`),
  );
  const token = /^GATEWAY_TOKEN=(\w+)$/m.exec(await readFile(join(out, '.env'), 'utf8'))?.[1] ?? '';
  const up = startProcess(SVC, ['up'], {
    cwd: out,
    env: {
      ...process.env,
      PATH: testPath(),
      SVC_API_TOKEN: '',
      SVC_CONFIG_DIR: configDir,
      SVC_LOG_LEVEL: 'warn',
    },
  });
  await up.waitFor(new RegExp(`local nodes ${nodes}: engines run by this gateway`));
  const url = `http://127.0.0.1:${port}`;
  return { up, url, token, headers: { authorization: `Bearer ${token}` }, fleet };
}
