/**
 * Where the engine watchdog script is: dist/watchdog.js, beside the bundle's entry. Code that
 * asks may sit in dist/ itself or in dist/chunks/, so both are looked at.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { SvcError } from '../errors.ts';

export function watchdogPath(from: string = import.meta.url): string {
  for (const relative of ['./watchdog.js', '../watchdog.js']) {
    const candidate = fileURLToPath(new URL(relative, from));
    if (existsSync(candidate)) {
      return candidate;
    }
  }
  throw new SvcError(
    'ERR_INTERNAL',
    'the engine watchdog (watchdog.js) is missing beside the svc bundle; rebuild with `npm run build`',
  );
}
