/**
 * The engine command line as logged at debug (docs/design.md D5): secret-bearing flag values
 * masked.
 */

/**
 * docs/design.md D5: flags whose value may be a secret: --api-key, --hf-token, -hft, any name with
 * token or key.
 */
export function isSecretFlag(flag: string): boolean {
  if (!flag.startsWith('-')) {
    return false;
  }
  const name = flag.replace(/^-+/, '').toLowerCase();
  return name !== 'api-key-file' && (name === 'hft' || /token|key/.test(name));
}

/** The command line as logged at debug: secret-bearing flag values replaced by `***`. */
export function redactArgs(args: readonly string[]): string[] {
  return args.map((arg, index) => {
    const equals = arg.indexOf('=');
    if (equals > 0 && isSecretFlag(arg.slice(0, equals))) {
      return `${arg.slice(0, equals)}=***`;
    }
    const previous = args[index - 1];
    return previous !== undefined && !previous.includes('=') && isSecretFlag(previous)
      ? '***'
      : arg;
  });
}
