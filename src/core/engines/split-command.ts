/**
 * A command line as the argv it runs, never through a shell: a llama-swap `cmd`, a Svcfile's
 * COMMAND and STOP (docs/design.md D31). Lines whose first character (after indentation) is `#`
 * are comments, a trailing `\` joins lines, and the rest is split into words with shell quoting
 * (single quotes literal, double quotes and backslash escapes). No shell runs it, so there is no
 * variable or glob expansion. Pure.
 */

/** The words of a command, or the reason it cannot be split (an unclosed quote). */
export function splitCommand(text: string): string[] | string {
  const joined = text
    .split(/\r?\n/)
    .filter((line) => !line.trimStart().startsWith('#'))
    .map((line) => line.replace(/\\\s*$/, ''))
    .join(' ');
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let index = 0; index < joined.length; index += 1) {
    const char = joined.charAt(index);
    if (quote === "'") {
      if (char === "'") {
        quote = undefined;
      } else {
        word += char;
      }
      continue;
    }
    if (quote === '"') {
      if (char === '"') {
        quote = undefined;
      } else if (char === '\\' && /["\\$`]/.test(joined.charAt(index + 1))) {
        word += joined.charAt(index + 1);
        index += 1;
      } else {
        word += char;
      }
      continue;
    }
    if (/\s/.test(char)) {
      if (inWord) {
        words.push(word);
        word = '';
        inWord = false;
      }
      continue;
    }
    inWord = true;
    if (char === "'" || char === '"') {
      quote = char;
    } else if (char === '\\' && index + 1 < joined.length) {
      word += joined.charAt(index + 1);
      index += 1;
    } else {
      word += char;
    }
  }
  if (quote !== undefined) {
    return `a ${quote === "'" ? 'single' : 'double'} quote is never closed`;
  }
  if (inWord) {
    words.push(word);
  }
  return words;
}
