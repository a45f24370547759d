/**
 * The fleet-file tests' text and readers: lines joined as a file, a one-node file with extra node
 * lines, and the parse with no variables (parsed / problems) or with some.
 */
import {
  type FleetSources,
  parseFleet,
  type Variables,
} from '../../../src/core/fleet/file/fleet-file.ts';
import { parseHelpers } from '../results/parse-result.ts';

export const NO_VARIABLES: FleetSources = { env: {}, dotenv: {} };

export const { parsed, problems } = parseHelpers(
  (text, source) => parseFleet(text, source, NO_VARIABLES),
  'the fleet file',
  'fleet.yaml',
);

export const lines = (...parts: string[]): string => `${parts.join('\n')}\n`;

/** A fleet file with one node `a` on host `h`, the node's extra lines indented under it. */
export const oneNode = (...nodeLines: string[]): string =>
  lines('nodes:', '  - name: a', '    host: h', ...nodeLines.map((line) => `    ${line}`));

export const withVariables = (text: string, env: Variables, dotenv: Variables = {}) =>
  parseFleet(text, 'fleet.yaml', { env, dotenv });
