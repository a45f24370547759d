/**
 * The control API's wire records (spec §2): the one source of every JSON field name. Fastify
 * validates requests and serialises replies with these schemas, the gateway's node client reads
 * replies with them, and docs/openapi.json is generated from them. Optional fields are absent
 * when they do not apply, never null or zero (spec §2).
 */
import { type Static, Type } from '@sinclair/typebox';

import { DeployConfigSchema } from './deploy-config.ts';

export { type DeployConfig, DeployConfigSchema } from './deploy-config.ts';

export const ENGINE_STATES = ['idle', 'running', 'stopped', 'crashed'] as const;
export const EngineStateSchema = Type.Union(
  ENGINE_STATES.map((state) => Type.Literal(state)),
  { description: 'idle: nothing started yet; crashed: the engine exited unprompted' },
);
export type EngineState = Static<typeof EngineStateSchema>;

export const ReadinessSchema = Type.Union([Type.Literal('ready'), Type.Literal('not-ready')], {
  description: 'Whether the running engine last answered its own health check',
});

export const EngineEndpointSchema = Type.Object(
  {
    port: Type.Integer({ description: "The engine's own port, never the control API's" }),
    host: Type.Optional(Type.String()),
    path: Type.Optional(Type.String({ description: 'OpenAI path prefix when not /v1' })),
    loopbackOnly: Type.Optional(Type.Boolean()),
    requiresKey: Type.Optional(Type.Boolean()),
  },
  { $id: 'EngineEndpoint', additionalProperties: false },
);
export type EngineEndpoint = Static<typeof EngineEndpointSchema>;

/**
 * docs/design.md D23 extension: how the last engine ended when it crashed; kept until the next
 * start.
 */
export const LastExitSchema = Type.Object(
  {
    exitCode: Type.Optional(
      Type.Integer({ description: "The engine's exit code, when it exited on its own" }),
    ),
    signal: Type.Optional(
      Type.String({ description: 'The signal that ended the engine (e.g. SIGSEGV), when one did' }),
    ),
    at: Type.String({ format: 'date-time', description: 'When the engine ended' }),
    logTail: Type.Array(Type.String(), {
      maxItems: 20,
      description:
        "The engine's last log lines (at most 20, each cut to 240 characters), the engine key and API token replaced by ***",
    }),
  },
  {
    $id: 'LastExit',
    additionalProperties: false,
    description:
      'Extension (not in the spec): how the crashed engine ended. Present after a crash until the next start.',
  },
);
export type LastExit = Static<typeof LastExitSchema>;

/** docs/design.md D32: what the last start restored from the slot files kept by `keepCache`. */
export const CacheRestoreSchema = Type.Object(
  {
    slots: Type.Integer({ minimum: 0, description: 'Slots restored' }),
    tokens: Type.Integer({ minimum: 0, description: 'Prompt tokens they brought back' }),
    ms: Type.Integer({ minimum: 0, description: 'How long the restore took, in milliseconds' }),
  },
  {
    $id: 'CacheRestore',
    additionalProperties: false,
    description:
      "Extension (not in the spec): what the engine's last start restored of the prompt cache kept across stops (keepCache). Present while the node runs with keepCache",
  },
);
export type CacheRestore = Static<typeof CacheRestoreSchema>;

/** docs/design.md D25 extension: the running engine's request slots, present only when known. */
const SlotsSchema = Type.Integer({
  minimum: 1,
  description:
    "Extension (not in the spec): the running engine's request slots, the requests it decodes at once: what the engine reports (llama.cpp's /props total_slots), else the parallel it was started with. Absent when unknown or not running",
});

/** docs/design.md D25 extension: the requests in the engine at the last scrape of its counters. */
const BusySchema = Type.Integer({
  minimum: 0,
  description:
    "Extension (not in the spec): requests in the engine's slots at the last scrape of its counters (llama.cpp requests_processing, vLLM num_requests_running). Absent when unknown or not running",
});

export const StatusResponseSchema = Type.Object(
  {
    state: EngineStateSchema,
    runner: Type.Optional(Type.String()),
    model: Type.Optional(Type.String()),
    servedName: Type.Optional(Type.String()),
    uptimeSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
    logPath: Type.Optional(Type.String()),
    lastActiveAt: Type.Optional(Type.String({ format: 'date-time' })),
    idleSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
    engine: Type.Optional(EngineEndpointSchema),
    ready: Type.Optional(ReadinessSchema),
    slots: Type.Optional(SlotsSchema),
    busy: Type.Optional(BusySchema),
    version: Type.String({
      description: "Build-time version; 'dev' when unset (docs/design.md D1)",
    }),
    lastExit: Type.Optional(LastExitSchema),
    lastCacheRestore: Type.Optional(CacheRestoreSchema),
  },
  { $id: 'StatusResponse', additionalProperties: false },
);
export type StatusResponse = Static<typeof StatusResponseSchema>;

export const TokenStatsSchema = Type.Object(
  {
    running: Type.Optional(Type.Integer()),
    counter: Type.Optional(Type.Integer()),
    promptTokens: Type.Optional(Type.Integer()),
    generationTokens: Type.Optional(Type.Integer()),
    requests: Type.Optional(Type.Integer()),
  },
  { $id: 'TokenStats', additionalProperties: false },
);
export type TokenStats = Static<typeof TokenStatsSchema>;

export const GpuStatSchema = Type.Object(
  {
    index: Type.Integer(),
    name: Type.Optional(Type.String()),
    utilization: Type.Optional(Type.Integer()),
    memoryUsed: Type.Optional(Type.Integer()),
    memoryTotal: Type.Optional(Type.Integer()),
    temperature: Type.Optional(Type.Integer()),
  },
  { $id: 'GpuStat', additionalProperties: false },
);

export const HistorySampleSchema = Type.Object(
  {
    t: Type.Integer({ description: 'Unix seconds' }),
    c: Type.Optional(Type.Number()),
    m: Type.Optional(Type.Number()),
    g: Type.Optional(
      Type.Array(
        Type.Object(
          { i: Type.Integer(), u: Type.Integer(), m: Type.Optional(Type.Number()) },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { $id: 'HistorySample', additionalProperties: false },
);

export const StatsSchema = Type.Object(
  {
    state: EngineStateSchema,
    runner: Type.Optional(Type.String()),
    modelId: Type.Optional(Type.String()),
    servedName: Type.Optional(Type.String()),
    uptimeSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
    tokens: Type.Optional(TokenStatsSchema),
    gpus: Type.Optional(Type.Array(GpuStatSchema)),
    cpu: Type.Optional(
      Type.Object({ utilization: Type.Number() }, { additionalProperties: false }),
    ),
    memory: Type.Optional(
      Type.Object({ total: Type.Integer(), used: Type.Integer() }, { additionalProperties: false }),
    ),
    history: Type.Optional(Type.Array(HistorySampleSchema)),
    errors: Type.Optional(Type.Array(Type.String())),
    lastActiveAt: Type.Optional(Type.String({ format: 'date-time' })),
    idleSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
    ready: Type.Optional(ReadinessSchema),
    slots: Type.Optional(SlotsSchema),
    busy: Type.Optional(BusySchema),
    retainUntil: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { $id: 'Stats', additionalProperties: false },
);
export type Stats = Static<typeof StatsSchema>;

export const LogsQuerySchema = Type.Object(
  {
    offset: Type.Optional(Type.String({ description: 'Byte position (integer >= 0)' })),
    limit: Type.Optional(Type.String({ description: 'Maximum bytes (integer >= 1)' })),
  },
  { additionalProperties: true },
);

export const LogsResponseSchema = Type.Object(
  {
    content: Type.String(),
    nextOffset: Type.Integer({ minimum: 0 }),
    size: Type.Integer({ minimum: 0 }),
    path: Type.Optional(Type.String()),
    missing: Type.Optional(Type.Boolean()),
    staleOffset: Type.Optional(Type.Boolean()),
  },
  { $id: 'LogsResponse', additionalProperties: false },
);
export type LogsResponse = Static<typeof LogsResponseSchema>;

export const StartRequestSchema = Type.Composite(
  [
    DeployConfigSchema,
    Type.Object({
      engineApiKey: Type.Optional(
        Type.String({ minLength: 1, description: 'Never returned or logged' }),
      ),
    }),
  ],
  { $id: 'StartRequest', additionalProperties: false },
);
export type StartRequest = Static<typeof StartRequestSchema>;

/** docs/design.md D8: a push carries its key the same way a start does. */
export const DeployConfigPushSchema = Type.Composite(
  [DeployConfigSchema, Type.Object({ engineApiKey: Type.Optional(Type.String({ minLength: 1 })) })],
  { $id: 'DeployConfigPush', additionalProperties: false },
);

export const MessageSchema = Type.Object(
  { message: Type.String() },
  { $id: 'Message', additionalProperties: false },
);
export type Message = Static<typeof MessageSchema>;

export const ErrorSchema = Type.Object(
  { error: Type.String() },
  { $id: 'Error', additionalProperties: false },
);
export type ErrorBody = Static<typeof ErrorSchema>;
