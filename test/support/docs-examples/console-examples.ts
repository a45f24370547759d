/**
 * Runs the ```console examples of README.md and docs/*.md the way a reader would, so they cannot
 * drift from the code. A block is `$ command` lines, each followed by the output it must print
 * (`…` matches anything). A command ending in `&` runs in the background as job %1, %2…;
 * `kill %N` sends it SIGTERM and waits for its exit. The caller's substitutions map the fixed
 * ports and paths a reader sees (4242, 8080, ~/svc) to the test's own.
 */
import { readFileSync } from 'node:fs';

import { expect } from 'vitest';

import { processTree } from '../processes/process-tree.ts';
import { runToEnd, startProcess, type TestProcess } from '../processes/processes.ts';

export interface ConsoleStep {
  readonly command: string;
  readonly expected: string;
}

/** A markdown section: from `heading` to the next heading of its level. */
function section(path: string, heading: string): string {
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) {
    throw new Error(`${path} has no "${heading}" section`);
  }
  const level = /^#+/.exec(heading)?.[0] ?? '##';
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`^${level} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}

/** The ```console blocks of a markdown section (from `heading` to the next heading of its level). */
export function consoleBlocks(path: string, heading: string): ConsoleStep[][] {
  return [...section(path, heading).matchAll(/```console\n([\s\S]*?)```/g)].map((match) => {
    const steps: { command: string; expected: string[] }[] = [];
    for (const line of (match[1] ?? '').trimEnd().split('\n')) {
      if (line.startsWith('$ ')) {
        steps.push({ command: line.slice(2), expected: [] });
      } else {
        steps.at(-1)?.expected.push(line);
      }
    }
    return steps.map((step) => ({ command: step.command, expected: step.expected.join('\n') }));
  });
}

/** The files a section shows as ```<lang> title=<path> blocks: path → body, in page order. */
export function titledBlocks(path: string, heading: string): Map<string, string> {
  const blocks = section(path, heading).matchAll(/```\S* title=(\S+)\n([\s\S]*?)```/g);
  return new Map([...blocks].map((match) => [match[1] ?? '', match[2] ?? '']));
}

function pattern(expected: string): RegExp {
  const escaped = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${escaped}\\n?$`);
}

export class ConsoleSession {
  private readonly jobs: TestProcess[] = [];

  constructor(
    private readonly cwd: string,
    private readonly env: NodeJS.ProcessEnv,
    /** Reader's text → the test's, applied to commands and expected output alike. */
    readonly substitutions: Map<string, string>,
  ) {}

  substitute(text: string): string {
    let out = text;
    for (const [from, to] of this.substitutions) {
      out = out.split(from).join(to);
    }
    return out;
  }

  /** Starts a background job; `ready` is what its output shows once it is up. */
  async background(command: string, ready?: RegExp): Promise<TestProcess> {
    const job = startProcess('bash', ['-c', this.substitute(command)], {
      cwd: this.cwd,
      env: this.env,
    });
    this.jobs.push(job);
    if (ready !== undefined) {
      await job.waitFor(ready, 60_000);
    }
    return job;
  }

  /** A signal to job %index's command (bash's child when bash did not exec it), then its exit. */
  async kill(index: number, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const job = this.jobs[index - 1];
    if (job === undefined) {
      throw new Error(`no job %${index}`);
    }
    let target = job.pid;
    try {
      if (readFileSync(`/proc/${job.pid}/comm`, 'utf8').trim() === 'bash') {
        target = processTree(job.pid)[1] ?? job.pid;
      }
    } catch {
      // already gone
    }
    process.kill(target, signal);
    await job.exited();
  }

  /**
   * Runs a foreground command and checks its output against the documented one: its stdout, or
   * its stderr where the command says what it does there (svc code, before its agent takes over).
   */
  async run(step: ConsoleStep, stream: 'stdout' | 'stderr' = 'stdout'): Promise<void> {
    const kill = /^kill %(\d+)$/.exec(step.command);
    if (kill !== null) {
      await this.kill(Number(kill[1]));
      return;
    }
    const result = await runToEnd('bash', ['-c', this.substitute(step.command)], {
      cwd: this.cwd,
      env: this.env,
    });
    expect(result.status, `${step.command}\n${result.stderr}`).toBe(0);
    if (step.expected !== '') {
      expect(result[stream], step.command).toMatch(pattern(this.substitute(step.expected)));
    }
  }

  /** Runs a command that must be refused with `status`, its stderr the documented output. */
  async refused(step: ConsoleStep, status: number): Promise<void> {
    const result = await runToEnd('bash', ['-c', this.substitute(step.command)], {
      cwd: this.cwd,
      env: this.env,
    });
    expect(result.status, step.command).toBe(status);
    expect(result.stderr, step.command).toMatch(pattern(this.substitute(step.expected)));
  }
}
