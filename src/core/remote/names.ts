/**
 * A remote environment's name is its registry key (`<config dir>/remotes/<name>/remote.json`),
 * so it must be one path segment: no `/`, no `.json` suffix (the original's rule), nothing that
 * walks out of the registry.
 */
export function remoteNameProblem(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..' || /[/\\]/.test(name)) {
    return `"${name}" is not an environment name: use letters, digits, ".", "-" or "_" (no "/")`;
  }
  if (name.endsWith('.json')) {
    return `"${name}" is not an environment name: drop the .json suffix`;
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
    return `"${name}" is not an environment name: use letters, digits, ".", "-" or "_"`;
  }
  return undefined;
}
