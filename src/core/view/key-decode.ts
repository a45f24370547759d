/**
 * Raw terminal input to key names, by a view's own table of sequences: known sequences become
 * names in order, an unknown escape sequence is skipped whole, any other byte is ignored. Pure.
 */

export function decodeWith<K>(sequences: readonly (readonly [string, K])[], input: string): K[] {
  const keys: K[] = [];
  let rest = input;
  while (rest.length > 0) {
    const match = sequences.find(([sequence]) => rest.startsWith(sequence));
    if (match !== undefined) {
      keys.push(match[1]);
      rest = rest.slice(match[0].length);
    } else if (rest.startsWith('\u001b[') || rest.startsWith('\u001bO')) {
      // An escape sequence the view does not handle: skip it whole (ends at a letter or ~).
      const end = rest.slice(2).search(/[A-Za-z~]/);
      rest = end < 0 ? '' : rest.slice(end + 3);
    } else {
      rest = rest.slice(1);
    }
  }
  return keys;
}
