/**
 * Plain-text tables for `svc fleet` (docs/design.md D17: a human table by default): columns padded
 * to their widest cell, two spaces apart, no trailing blanks. Pure.
 */

/**
 * A row's cells, and optionally a note after them that no column is sized by: a node that did not
 * answer shows its reason there, so one long reason (an unset variable names the .env path) does
 * not push every other row's columns across the screen.
 */
export interface TableRow {
  readonly cells: readonly string[];
  readonly note?: string;
}

export function table(rows: readonly (readonly string[] | TableRow)[]): string {
  const shaped = rows.map((row): TableRow => ('cells' in row ? row : { cells: row }));
  const columns = Math.max(0, ...shaped.map((row) => row.cells.length));
  const widths = Array.from({ length: columns }, (_, column) =>
    Math.max(...shaped.map((row) => (row.cells[column] ?? '').length)),
  );
  return shaped
    .map((row) =>
      [
        ...row.cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)),
        ...(row.note === undefined ? [] : [row.note]),
      ]
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
