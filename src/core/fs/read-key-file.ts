/**
 * The engine key, read back from its private file (spec §5 rule 5: the engine gets only the path)
 * by whoever must call the gated engine itself: the readiness check and the counter scrape.
 */
import { readFile } from 'node:fs/promises';

/** The trimmed key, or undefined when there is no file, it is unreadable, or it is empty. */
export async function readKeyFile(path: string | undefined): Promise<string | undefined> {
  if (path === undefined) {
    return undefined;
  }
  try {
    return (await readFile(path, 'utf8')).trim() || undefined;
  } catch {
    return undefined;
  }
}
