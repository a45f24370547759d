/**
 * EngineSpec: everything that decides an engine's command line, whether it came from a Svcfile
 * (serve) or a deploy config (daemon). Both paths produce one of these and build-command.ts turns
 * it into argv, so the two cannot drift apart.
 */
import type { Runner } from './engine-table.ts';

export interface SettingEntry {
  readonly key: string;
  readonly value: string;
}

/**
 * docs/design.md D31: what `PROVIDER command` runs, from the Svcfile's COMMAND, HEALTH and STOP.
 */
export interface CommandSpec {
  /** COMMAND as split (never run by a shell), `${PORT}` still unreplaced. */
  readonly argv: readonly string[];
  /** HEALTH: the path that answers 200 to GET once the program is ready. */
  readonly health: string;
  /** STOP, run instead of SIGTERM, `${PID}` still unreplaced. */
  readonly stop?: readonly string[];
}

export interface EngineSpec {
  readonly runner: Runner;
  /** MODEL / modelId (with `:quant` already attached where the runner reads it so). */
  readonly model?: string;
  /** ALIAS / servedModelName. */
  readonly alias?: string;
  /** Context window of one request (spec §1.3: CONTEXT always means that). */
  readonly context?: number;
  readonly parallel?: number;
  /** Bind address from BASEURL. */
  readonly host?: string;
  readonly port?: number;
  /**
   * BASEURL's path when not the usual `/v1`: where clients find the engine's OpenAI-compatible API
   * (spec §2.2 `engine.path`). Reported in status, never passed to the engine.
   */
  readonly path?: string;
  /** Preset layers, lowest precedence first: `[*]` defaults, then the chosen section. */
  readonly presetLayers?: readonly (readonly SettingEntry[])[];
  /** Settings svc derives itself (deploy-config companions, quant), rendered after the fields. */
  readonly extraSettings?: readonly SettingEntry[];
  /** Runner flags appended verbatim (deploy-config serveArgs): no merge, no dedup (spec §2.7). */
  readonly extraArgs?: readonly string[];
  /** Path of the private file holding the engine key (spec §5 rule 5). */
  readonly keyFile?: string;
  /**
   * `keepCache` (docs/design.md D32): the slot directory the engine saves to, and the bytes kept
   * there. The supervisor saves every slot before a graceful stop and restores them after a start.
   */
  readonly keepCache?: { readonly dir: string; readonly maxBytes: number };
  /** `PROVIDER command` only: the program, its readiness path and its stop command. */
  readonly command?: CommandSpec;
  /** ENGINE: the engine's executable by path in place of the one on PATH (llamacpp only). */
  readonly binary?: string;
  /** Supervised runs switch the engine's metrics endpoint on (spec §1.4, docs/design.md D3). */
  readonly supervised?: boolean;
}
