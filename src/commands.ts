/**
 * The table of subcommands. src/cli.ts reads names and summaries from it to dispatch and to print
 * help, and imports a command's module only when that command runs, so `svc --version` loads
 * nothing else. A command appears here only once it does real work.
 */
import type { CommandModule } from './core/command.ts';

export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  readonly load: () => Promise<CommandModule>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'daemon',
    summary: 'Supervise one engine behind an authenticated JSON control API',
    load: () => import('./daemon/command.ts'),
  },
  {
    name: 'serve',
    summary: 'Run the engine a Svcfile names in the foreground, with a live view',
    load: () => import('./serve/command.ts'),
  },
  {
    name: 'gateway',
    summary: 'One OpenAI-compatible endpoint for a fleet of daemons, waking nodes on demand',
    load: () => import('./gateway/command.ts'),
  },
  {
    name: 'fleet',
    summary: 'Status, start/stop, metrics, logs, route and a dashboard for a fleet file',
    load: () => import('./fleet/command.ts'),
  },
  {
    name: 'remote',
    summary: 'Register and drive remote environments (cloud GPU nodes booted on demand)',
    load: () => import('./remote/command.ts'),
  },
  {
    name: 'up',
    summary: 'Start the fleet.yaml nodes here, or serve the Svcfile here',
    load: () => import('./up/command.ts'),
  },
  {
    name: 'code',
    summary: 'Launch a coding agent (opencode, Pi, Claude Code, Codex) configured for the fleet',
    load: () => import('./code/command.ts'),
  },
  {
    name: 'alias',
    summary: 'Register, list or remove short names for Svcfiles',
    load: () => import('./alias/command.ts'),
  },
  {
    name: 'import',
    summary: 'Turn a llama-swap configuration into a fleet file and Svcfiles',
    load: () => import('./import/command.ts'),
  },
];
