/**
 * The fleet page's files (`GET /` and its assets): plain HTML, CSS and JS kept in `page/` beside
 * this module and copied beside the bundle by the build, read once at startup and served from
 * memory. They hold no data, so they need no token; every data call the page makes carries it.
 * A strict CSP allows only the gateway itself (no inline script or style, no CDN, no fonts), so
 * the page works on an offline machine.
 */
import { readFile } from 'node:fs/promises';

import { SvcError } from '../../core/errors.ts';

export interface PageAsset {
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string | number>>;
}

/** URL path → file name and content type. */
const FILES: Readonly<Record<string, readonly [string, string]>> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/page/node-card.js': ['node-card.js', 'text/javascript; charset=utf-8'],
  '/page/force-confirm.js': ['force-confirm.js', 'text/javascript; charset=utf-8'],
  '/page/charts.js': ['charts.js', 'text/javascript; charset=utf-8'],
  '/page/history-panels.js': ['history-panels.js', 'text/javascript; charset=utf-8'],
  '/page/usage-tables.js': ['usage-tables.js', 'text/javascript; charset=utf-8'],
  '/page/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/page/chat.js': ['chat.js', 'text/javascript; charset=utf-8'],
  '/page/app.css': ['app.css', 'text/css; charset=utf-8'],
  '/page/charts.css': ['charts.css', 'text/css; charset=utf-8'],
};

export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Where the files are: beside this module when run from source; in dist/page (copied by
 * scripts/build.mjs) when this module is bundled into dist/ or is a chunk under dist/chunks.
 */
const CANDIDATE_DIRS = [
  new URL('./', import.meta.url),
  new URL('./page/', import.meta.url),
  new URL('../page/', import.meta.url),
];

/**
 * How the page learns whether the gateway wants a token, without a request that a browser would
 * log as an error when refused: the served page's root element says so. Not a secret: any
 * request without a token tells the same.
 */
function marked(file: string, body: Buffer, tokenless: boolean): Buffer {
  if (file !== 'index.html' || !tokenless) {
    return body;
  }
  return Buffer.from(
    body.toString('utf8').replace('<html lang="en">', '<html lang="en" data-token="none">'),
  );
}

/** The page's assets by URL path; fails naming the directories looked in when they are missing. */
export async function loadPage(
  dirs: readonly URL[] = CANDIDATE_DIRS,
  options: { readonly tokenless?: boolean } = {},
): Promise<Map<string, PageAsset>> {
  for (const dir of dirs) {
    try {
      const assets = new Map<string, PageAsset>();
      for (const [path, [file, type]] of Object.entries(FILES)) {
        const body = marked(file, await readFile(new URL(file, dir)), options.tokenless === true);
        assets.set(path, {
          body,
          headers: {
            'content-type': type,
            'content-length': body.length,
            'content-security-policy': PAGE_CSP,
            'x-content-type-options': 'nosniff',
            'referrer-policy': 'no-referrer',
            // Revalidated each time: a new svc release must not be hidden behind an old page.
            'cache-control': 'no-cache',
          },
        });
      }
      return assets;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw error;
      }
    }
  }
  throw new SvcError(
    'ERR_INTERNAL',
    `the fleet page's files are missing (looked in ${dirs.map((dir) => dir.pathname).join(', ')}); rebuild svc`,
  );
}
