/**
 * Terminal-safe text: engine output may hold escape sequences, carriage returns, tabs and wide
 * characters; the view shows each line as plain text clipped to the screen width, so nothing an
 * engine prints can move the cursor or spill into the next row. Pure.
 */

const ESCAPES =
  // eslint-disable-next-line no-control-regex -- escape sequences are exactly what is removed
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[()*+\-./].|[@-Z\\-_]|[0-9=<>])/g;
// eslint-disable-next-line no-control-regex -- as above
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const NEWLINES = /\n/g;

/** One log line as plain text: escapes dropped, a redraw (`\r`) keeps its last state, tabs expanded. */
export function sanitizeLine(line: string): string {
  const lastState =
    line
      .split('\r')
      .filter((part) => part !== '')
      .at(-1) ?? '';
  // A newline inside one line (svc's own multi-line messages) must not move the cursor.
  return lastState
    .replace(ESCAPES, '')
    .replaceAll('\t', '    ')
    .replace(NEWLINES, ' ')
    .replace(CONTROLS, '');
}

/** Emoji below U+1F300 that terminals draw two columns wide (emoji presentation by default). */
const WIDE_SYMBOLS = new Set([
  0x231a, 0x231b, 0x23e9, 0x23ea, 0x23eb, 0x23ec, 0x23f0, 0x23f3, 0x25fd, 0x25fe, 0x2614, 0x2615,
  0x2648, 0x2649, 0x264a, 0x264b, 0x264c, 0x264d, 0x264e, 0x264f, 0x2650, 0x2651, 0x2652, 0x2653,
  0x267f, 0x2693, 0x26a1, 0x26aa, 0x26ab, 0x26bd, 0x26be, 0x26c4, 0x26c5, 0x26ce, 0x26d4, 0x26ea,
  0x26f2, 0x26f3, 0x26f5, 0x26fa, 0x26fd, 0x2705, 0x270a, 0x270b, 0x2728, 0x274c, 0x274e, 0x2753,
  0x2754, 0x2755, 0x2757, 0x2795, 0x2796, 0x2797, 0x27b0, 0x27bf, 0x2b1b, 0x2b1c, 0x2b50, 0x2b55,
]);

/** Columns a character takes: 2 for East Asian wide and emoji ranges, 0 for combining marks. */
function charWidth(codePoint: number): number {
  if ((codePoint >= 0x300 && codePoint <= 0x36f) || (codePoint >= 0x200b && codePoint <= 0x200f)) {
    return 0;
  }
  const wide =
    WIDE_SYMBOLS.has(codePoint) ||
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x1f300 && codePoint <= 0x1faff) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd);
  return wide ? 2 : 1;
}

export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    width += charWidth(char.codePointAt(0) ?? 0);
  }
  return width;
}

/** Cuts `text` to at most `columns` columns, never splitting a wide character. */
export function clip(text: string, columns: number): string {
  if (columns <= 0) {
    return '';
  }
  let width = 0;
  let out = '';
  for (const char of text) {
    const next = charWidth(char.codePointAt(0) ?? 0);
    if (width + next > columns) {
      break;
    }
    width += next;
    out += char;
  }
  return out;
}

/** Clips, then pads with spaces to exactly `columns` columns. */
export function fit(text: string, columns: number): string {
  const clipped = clip(text, columns);
  return clipped + ' '.repeat(Math.max(0, columns - displayWidth(clipped)));
}
