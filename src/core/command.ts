/**
 * What a command module is and what it is given: the process's argv, environment, working
 * directory and standard streams, passed in so a test can run a command without a process.
 * Commands import this, never the command table (src/commands.ts), which only src/cli.ts reads.
 */

export interface CommandIo {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
}

export interface CommandModule {
  /** Full help text for `svc <command> --help`. */
  readonly help: string;
  /** Runs the command to completion and resolves to the process exit status. */
  run(io: CommandIo): Promise<number>;
}
