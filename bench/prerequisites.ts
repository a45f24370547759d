/**
 * What each `npm run bench` section runs beside svc and node, checked for every section asked for
 * before the first one starts: a missing tool ends the run at once, naming it, the sections that
 * need it and how to install it, rather than midway through a section with its figures lost.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export type Tool = 'llama-server' | 'nginx' | 'wrk';

const INSTALL: Readonly<Record<Tool, string>> = {
  'llama-server': 'run scripts/install-test-engine.sh (see CONTRIBUTING.md)',
  nginx: 'install nginx (apt-get install nginx)',
  wrk: 'install wrk (apt-get install wrk)',
};

/**
 * The tools a section runs. The scheduler's scenarios 1 and 2 run the fake engine; 3 and 4 the
 * real llama-server.
 */
export function toolsOf(section: string, schedulerScenarios: ReadonlySet<number>): Tool[] {
  switch (section) {
    case 'sampler':
    case 'soak':
    case 'wake':
    case 'keepcache':
    case 'names':
      return ['llama-server'];
    case 'gateway':
      return ['llama-server', 'nginx', 'wrk'];
    case 'local':
      return ['llama-server', 'wrk'];
    case 'scheduler':
      return schedulerScenarios.has(3) || schedulerScenarios.has(4) ? ['llama-server'] : [];
    default:
      return [];
  }
}

/** An executable of that name in one of `path`'s directories. */
export function onPath(path: string): (tool: Tool) => boolean {
  return (tool) =>
    path.split(delimiter).some((dir) => {
      try {
        accessSync(join(dir, tool), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

/** One line per missing tool: the tool, the sections that need it, and its install. */
export function missingTools(
  sections: readonly string[],
  schedulerScenarios: ReadonlySet<number>,
  found: (tool: Tool) => boolean,
): string[] {
  const needers = new Map<Tool, string[]>();
  for (const section of sections) {
    for (const tool of toolsOf(section, schedulerScenarios)) {
      needers.set(tool, [...(needers.get(tool) ?? []), section]);
    }
  }
  return [...needers]
    .filter(([tool]) => !found(tool))
    .map(([tool, names]) => `${tool}, needed by ${names.join(', ')}: ${INSTALL[tool]}`);
}
