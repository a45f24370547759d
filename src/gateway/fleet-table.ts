/**
 * Plain-text tables for `svc fleet` (GUIDE D17: a human table by default): columns padded to
 * their widest cell, two spaces apart, no trailing blanks. Pure.
 */

export function table(rows: readonly (readonly string[])[]): string {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
