/**
 * Terminal-safe text: engine output may hold escape sequences, carriage returns, tabs and wide
 * characters; the view shows each line as plain text clipped to the screen width, so nothing an
 * engine prints can move the cursor or spill into the next row. Pure.
 */

// eslint-disable-next-line no-control-regex -- escape sequences are exactly what is removed
const ESCAPES = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
// eslint-disable-next-line no-control-regex -- as above
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** One log line as plain text: escapes dropped, a redraw (`\r`) keeps its last state, tabs expanded. */
export function sanitizeLine(line: string): string {
  const lastState =
    line
      .split('\r')
      .filter((part) => part !== '')
      .at(-1) ?? '';
  return lastState.replace(ESCAPES, '').replaceAll('\t', '    ').replace(CONTROLS, '');
}

/** Columns a character takes: 2 for East Asian wide and emoji ranges, 0 for combining marks. */
function charWidth(codePoint: number): number {
  if ((codePoint >= 0x300 && codePoint <= 0x36f) || (codePoint >= 0x200b && codePoint <= 0x200f)) {
    return 0;
  }
  const wide =
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
