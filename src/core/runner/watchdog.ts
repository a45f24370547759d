/**
 * Entry point of the engine watchdog (bundled as dist/watchdog.js; see engine-watchdog.ts):
 * `node watchdog.js <engine binary> [args…]`, spawned by svc only.
 */
import { runWatchdog } from './engine-watchdog.ts';

// Its own program, like src/cli.ts: it ends itself once the engine's group is empty (its stdin
// lifeline keeps it alive until then).
process.exit(await runWatchdog(process.argv.slice(2)));
