/**
 * Why a local node's next start would fail, known before any request asks for it (docs/design.md
 * D27): its Svcfile does not parse (the parser's own message, with file and line, as a request
 * gets it) or its model file is not there (the supervisor's refusal, with the Svcfile it came
 * from). Read through the fleet view's source cache, so a fixed file is seen within its window.
 * The gateway says them at start-up and `/v1/fleet` carries them as `problems`; the rest of the
 * fleet is served as ever.
 */
import { buildCommand } from '../../core/engines/build-command.ts';
import { specFromDeployConfig } from '../../core/engines/from-deploy-config.ts';
import { deployConfigOf, type NodeSource } from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import { missingModelFile } from '../../core/runner/model-file.ts';

/** The reason `source` would fail a start, or undefined when it would not. */
export async function startProblem(source: Promise<NodeSource>): Promise<string | undefined> {
  let found: NodeSource;
  try {
    found = await source;
  } catch (error) {
    return (error as Error).message;
  }
  // docs/design.md D31: a PROVIDER command or ENGINE node carries its spec itself.
  const spec = found.spec ?? specFromDeployConfig(deployConfigOf(found));
  const missing = missingModelFile(spec.runner, buildCommand(spec).args);
  return missing === undefined
    ? undefined
    : `${found.source}: the model file ${missing} does not exist`;
}

/** Each local node's start problem, by node name; nodes without one are absent. */
export async function localProblems(
  nodes: readonly FleetNode[],
  sourceOf: (node: FleetNode) => Promise<NodeSource>,
): Promise<ReadonlyMap<string, readonly string[]>> {
  const found = await Promise.all(
    nodes
      .filter((node) => node.kind === 'local')
      .map(async (node) => [node.name, await startProblem(sourceOf(node))] as const),
  );
  return new Map(
    found.flatMap(([name, problem]) => (problem === undefined ? [] : [[name, [problem]]])),
  );
}
