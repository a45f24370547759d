/** The environment an engine runs with: the given one, less what svc holds for itself. */

/** Variables svc holds for itself and never hands to the engine. */
const ENGINE_WITHHELD = new Set(['SVC_API_TOKEN']);

/**
 * The API token authorises driving this node, never the engine (spec §5 rule 5): the engine
 * inherits svc's environment without it, so an engine that prints its environment leaks nothing.
 */
export function engineEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && !ENGINE_WITHHELD.has(entry[0]),
    ),
  );
}
