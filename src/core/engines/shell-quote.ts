/**
 * Prints a command so it can be pasted into a POSIX shell: safe tokens bare, anything else in
 * single quotes (with embedded quotes as '\''), an empty token as ''. Pure.
 */

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function quoteToken(token: string): string {
  if (token === '') {
    return "''";
  }
  return SAFE.test(token) ? token : `'${token.replaceAll("'", `'\\''`)}'`;
}

export function formatCommand(tokens: readonly string[]): string {
  return tokens.map(quoteToken).join(' ');
}
