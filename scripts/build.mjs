// Bundles src/cli.ts into dist/ with esbuild. One bundle keeps `svc --version` close to a bare
// `node -e 0` (see docs/benchmarks.md); subcommands stay separate chunks, loaded on demand.
// The release version is baked in here: `SVC_VERSION=1.2.0 npm run build` (unset means "dev").
import { chmod, cp, rm } from 'node:fs/promises';

import { build } from 'esbuild';

const version = process.env.SVC_VERSION ?? '';

await rm('dist', { recursive: true, force: true });
await build({
  // The engine watchdog is its own small script: svc spawns it with node (src/core/runner/engine-watchdog.ts).
  entryPoints: [
    { in: 'src/cli.ts', out: 'cli' },
    { in: 'src/core/runner/watchdog.ts', out: 'watchdog' },
  ],
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  chunkNames: 'chunks/[name]-[hash]',
  banner: { js: '#!/usr/bin/env node' },
  define: { __SVC_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
});
await chmod('dist/cli.js', 0o755);
// The fleet page is plain files, no build step (src/gateway/page/fleet-page.ts finds them in dist/page).
await cp('src/gateway/page', 'dist/page', {
  recursive: true,
  // The page's module stays in the bundle; only the browser's files are copied.
  filter: (source) => !source.endsWith('.ts'),
});
