/**
 * The flags each `svc fleet` verb takes: `-f, --fleet` everywhere except `logs` and `activity`,
 * whose `-f` means follow as in `tail -f` (docs/design.md D24). One table, so parsing and help cannot disagree.
 */
import type { OptionTable } from '../core/cli-args.ts';

export const FLEET_VERBS = [
  'status',
  'start',
  'stop',
  'deploy',
  'metrics',
  'logs',
  'route',
  'usage',
  'activity',
  'dashboard',
] as const;

export type FleetVerb = (typeof FLEET_VERBS)[number];

const FLEET = {
  fleet: {
    type: 'string',
    short: 'f',
    value: '<path>',
    description: 'Fleet file (default ./fleet.yaml)',
  },
} as const satisfies OptionTable;

const JSON_OUTPUT = {
  json: { type: 'boolean', description: 'Print JSON instead of a table or lines' },
} as const satisfies OptionTable;

export const FLEET_VERB_OPTIONS = {
  status: { ...FLEET, ...JSON_OUTPUT },
  start: {
    ...FLEET,
    all: { type: 'boolean', description: 'Every node' },
    force: {
      type: 'boolean',
      description: 'In a full group, stop the member holding it even when it is busy',
    },
    ...JSON_OUTPUT,
  },
  stop: {
    ...FLEET,
    all: { type: 'boolean', description: 'Every node' },
    force: {
      type: 'boolean',
      description: 'Stop a local node even with requests in flight through its gateway',
    },
    ...JSON_OUTPUT,
  },
  deploy: { ...FLEET, all: { type: 'boolean', description: 'Every node' }, ...JSON_OUTPUT },
  metrics: {
    ...FLEET,
    watch: { type: 'boolean', short: 'w', description: 'Redraw every 2 s until Ctrl+C' },
    ...JSON_OUTPUT,
  },
  logs: {
    fleet: { type: 'string', value: '<path>', description: 'Fleet file (default ./fleet.yaml)' },
    follow: { type: 'boolean', short: 'f', description: 'Keep printing new lines until Ctrl+C' },
    ...JSON_OUTPUT,
  },
  route: { ...FLEET, ...JSON_OUTPUT },
  usage: { ...FLEET, ...JSON_OUTPUT },
  activity: {
    fleet: { type: 'string', value: '<path>', description: 'Fleet file (default ./fleet.yaml)' },
    follow: {
      type: 'boolean',
      short: 'f',
      description: 'Keep printing new requests until Ctrl+C',
    },
    limit: { type: 'string', value: '<n>', description: 'How many of the last requests (1–1000)' },
    ...JSON_OUTPUT,
  },
  dashboard: { ...FLEET },
} as const satisfies Record<FleetVerb, OptionTable>;
