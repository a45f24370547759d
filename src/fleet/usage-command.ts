/**
 * `svc fleet usage` (docs/design.md D29): what each caller used through the gateway, per model,
 * since the gateway started, from its `GET /v1/fleet/usage`. The operator token sees every
 * caller; any other token only itself. `--json` prints the gateway's reply as it came.
 */
import type { Fleet, Variables } from '../core/fleet/file/fleet-file.ts';
import { isRecord } from '../core/fleet/file/fleet-node.ts';
import type { GetText } from './gateway-readout.ts';
import { readGateway } from './gateway-reads.ts';
import { table } from './table.ts';

export interface UsageCommand {
  readonly fleet: Fleet;
  readonly json: boolean;
  readonly write: (text: string) => void;
  readonly variables: readonly Variables[];
  readonly get?: GetText;
}

const count = (value: unknown): string => (typeof value === 'number' ? String(value) : '-');

/** The table: one row per caller and model, as the gateway ordered them. */
export function usageText(body: unknown): string {
  const since = isRecord(body) && typeof body['since'] === 'string' ? body['since'] : undefined;
  const callers = isRecord(body) && Array.isArray(body['callers']) ? body['callers'] : [];
  const rows: string[][] = [];
  for (const caller of callers as unknown[]) {
    if (!isRecord(caller) || typeof caller['name'] !== 'string') {
      continue;
    }
    const models = Array.isArray(caller['models']) ? (caller['models'] as unknown[]) : [];
    for (const model of models) {
      if (isRecord(model)) {
        rows.push([
          caller['name'],
          typeof model['model'] === 'string' ? model['model'] : '-',
          count(model['requests']),
          count(model['promptTokens']),
          count(model['completionTokens']),
          count(model['cachedTokens']),
        ]);
      }
    }
  }
  const head = ['CALLER', 'MODEL', 'REQUESTS', 'PROMPT', 'COMPLETION', 'CACHED'];
  const note = since === undefined ? '' : `since ${since}\n`;
  return rows.length === 0 ? `${note}no requests yet\n` : `${table([head, ...rows])}\n${note}`;
}

export async function runUsage(command: UsageCommand): Promise<number> {
  const body = await readGateway(command.fleet, command.variables, '/usage', command.get);
  command.write(command.json ? `${JSON.stringify(body, null, 2)}\n` : usageText(body));
  return 0;
}
