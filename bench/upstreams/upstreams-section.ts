/**
 * `BENCH_ONLY=upstreams`: its prerequisites checked before anything starts, each table printed as
 * its scenario ends, the whole section for docs/benchmarks.md at the end.
 * BENCH_UPSTREAMS_ROUNDS and BENCH_UPSTREAMS_SAMPLES shorten the run while iterating; the
 * recorded figures use the defaults.
 */
import { benchUpstreams, upstreamsPrerequisites } from './upstreams.ts';
import { costTable, upstreamsReport, wakingTable } from './upstreams-report.ts';

export async function upstreamsSection(repoRoot: string, machine: string): Promise<string> {
  const missing = await upstreamsPrerequisites(repoRoot);
  if (missing.length > 0) {
    throw new Error(
      `upstreams: missing prerequisites, nothing was run:\n  ${missing.join('\n  ')}`,
    );
  }
  const bench = await benchUpstreams(
    repoRoot,
    (part, figures) => {
      const table = part === 'waking' ? wakingTable(figures) : costTable(figures);
      process.stdout.write(`\n### upstreams (${part})\n${table}\n`);
    },
    Number(process.env['BENCH_UPSTREAMS_ROUNDS'] ?? 5),
    Number(process.env['BENCH_UPSTREAMS_SAMPLES'] ?? 1_000),
  );
  return upstreamsReport(bench, machine);
}
