/** What the gateway's HTTP surface (app.ts) and its route table (routes.ts) are built from. */
import type { FleetView } from '../../core/fleet/state/node-snapshots.ts';
import type { CorsPolicy } from '../../core/http/cors.ts';
import type { Logger } from '../../core/logger.ts';
import type { NodeControlClient } from '../control/fleet-control.ts';
import type { NodeLogsClient } from '../control/node-logs.ts';
import type { FleetHistory } from '../history/fleet-history.ts';
import type { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import type { SchedulingReadout } from '../metrics/scheduling-readout.ts';
import type { PageAsset } from '../page/fleet-page.ts';
import type { CompleteDeps } from '../requests/complete.ts';
import type { CallerUsage } from '../usage/caller-usage.ts';

export interface GatewayDeps extends CompleteDeps {
  readonly view: FleetView;
  readonly logger: Logger;
  readonly token?: string;
  /**
   * The operator token (docs/design.md D28); absent lets the gateway token start and stop nodes.
   */
  readonly operatorToken?: string;
  /** The fleet file's gateway.cors origins; absent allows any (docs/design.md D22). */
  readonly cors?: CorsPolicy;
  /** When the gateway started (ms): the `created` of models nothing runs yet. */
  readonly startedAt: number;
  readonly metrics: GatewayMetrics;
  /** The fleet page's files by URL path (fleet-page.ts). */
  readonly page: ReadonlyMap<string, PageAsset>;
  /** Start, stop and stats for the page's node controls; a node's engine log. */
  readonly nodes: NodeControlClient & NodeLogsClient;
  /**
   * What /v1/fleet reports of the scheduler (docs/design.md D25, D26): in flight, queued, idle
   * stop.
   */
  readonly readout?: SchedulingReadout;
  /** docs/design.md D29: what each caller used; buildGateway makes one when absent. */
  readonly usage?: CallerUsage;
  /** The page's charts' last 10 minutes (history/fleet-history.ts). */
  readonly history?: FleetHistory;
}
