/**
 * "Did you mean" for strict inputs (docs/design.md D20): an unknown flag or fleet-file key is
 * refused naming the closest known name, so a typo is fixed in one try instead of silently ignored.
 * Pure: a word and the known names in, the best near match (or nothing) out.
 */

/** Edit distance with adjacent transpositions (optimal string alignment), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const rows: number[][] = [];
  for (let i = 0; i <= s.length; i += 1) {
    const row: number[] = [];
    for (let j = 0; j <= t.length; j += 1) {
      if (i === 0 || j === 0) {
        row.push(i + j);
        continue;
      }
      const above = rows[i - 1] ?? [];
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return rows[s.length]?.[t.length] ?? Math.max(s.length, t.length);
}

/**
 * The known name nearest to `word`, when it is near enough to be a typo: at most a third of the
 * word's length in edits (at least 1, at most 3), so `--lopback` finds `--loopback` but `--x`
 * suggests nothing rather than a random flag; else the first name the word begins (at least 3
 * characters). Ties go to the earlier name in `known`.
 */
export function closestName(word: string, known: readonly string[]): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const distance = editDistance(word, name);
    if (distance <= limit && distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  // A shortened name (`token` for `tokenEnv`, `--api` for `--api-addr`) is a typo too.
  return (
    best ??
    (word.length >= 3
      ? known.find((name) => name.toLowerCase().startsWith(word.toLowerCase()))
      : undefined)
  );
}
