/**
 * The top entries of a V8 `.cpuprofile` (what `node --cpu-prof` writes): self time per function,
 * summed over every node of the call tree that names it, as a share of the sampled busy time (idle left out). The
 * benchmark page shows these before and after a hot-path change (docs/benchmarks.md).
 */
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  readonly name: string;
  readonly selfMs: number;
  readonly share: number;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^.*\/(node_modules\/)?/, '');
  return `${functionName === '' ? '(anonymous)' : functionName}${file === '' ? '' : ` ${file}:${lineNumber + 1}`}`;
}

export function topEntries(profile: CpuProfile, count: number): ProfileEntry[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    const delta = (profile.timeDeltas[index] ?? 0) / 1000;
    if (node !== undefined && node.callFrame.functionName !== '(idle)') {
      total += delta;
      const name = frameName(node);
      self.set(name, (self.get(name) ?? 0) + delta);
    }
  });
  return [...self.entries()]
    .filter(([name]) => name !== '(idle)' && !name.startsWith('(program)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, selfMs]) => ({ name, selfMs, share: selfMs / total }));
}

export async function readProfile(path: string, count = 12): Promise<ProfileEntry[]> {
  return topEntries(JSON.parse(await readFile(path, 'utf8')) as CpuProfile, count);
}
