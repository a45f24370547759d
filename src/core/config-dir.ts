/**
 * Where svc keeps its state: the engine log, the alias registry, the stored deploy config and the
 * engine key. One directory per user (docs/design.md "Names"), resolved the same way by every
 * command.
 */
import { isAbsolute, join, resolve } from 'node:path';

export interface ConfigDirInputs {
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  cwd: string;
}

/**
 * `$SVC_CONFIG_DIR`, else `$XDG_CONFIG_HOME/svc`, else `~/.config/svc`. Empty variables count as
 * unset; a relative XDG_CONFIG_HOME is ignored, as the XDG base-directory spec requires, while a
 * relative SVC_CONFIG_DIR is taken against the working directory (it is ours to define).
 */
export function resolveConfigDir({ env, home, cwd }: ConfigDirInputs): string {
  const own = env['SVC_CONFIG_DIR'];
  if (own !== undefined && own !== '') {
    return resolve(cwd, own);
  }
  const xdg = env['XDG_CONFIG_HOME'];
  if (xdg !== undefined && xdg !== '' && isAbsolute(xdg)) {
    return join(xdg, 'svc');
  }
  return join(home, '.config', 'svc');
}

/** Files under the config dir. The engine log path is fixed by docs/design.md "Names". */
export function configPaths(configDir: string): { daemonDir: string; engineLog: string } {
  const daemonDir = join(configDir, 'daemon');
  return { daemonDir, engineLog: join(daemonDir, 'engine.log') };
}
