/** The top-level help screen, rendered from the command table (pure). */

export function renderMainHelp(
  commands: readonly { readonly name: string; readonly summary: string }[],
): string {
  const width = Math.max(0, ...commands.map((command) => command.name.length));
  const lines = [
    'svc: supervise local LLM inference engines',
    '',
    'Usage:',
    '  svc <command> [options]',
    '  svc <command> --help',
    '  svc --version',
    '',
  ];
  if (commands.length > 0) {
    lines.push('Commands:');
    for (const command of commands) {
      lines.push(`  ${command.name.padEnd(width)}  ${command.summary}`);
    }
    lines.push('');
  }
  lines.push(
    'Options:',
    '  -h, --help     Show help',
    '  -V, --version  Print the version and exit',
    '',
    'Environment: SVC_CONFIG_DIR, SVC_LOG_LEVEL, SVC_API_TOKEN, SVC_ALIAS',
    '',
  );
  return lines.join('\n');
}
