/** "Did you mean …": the known word closest to a mistyped one, if any is close enough. */

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidate `typed` most likely meant: the nearest within a third of its length (at least one edit,
 * at most three), else the only candidate it is the start of; null when nothing is close.
 */
export function closest(typed: string, candidates: Iterable<string>): string | null {
  const limit = Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
  let best: string | null = null;
  let bestDistance = Infinity;
  const extending: string[] = [];
  for (const candidate of candidates) {
    const d = editDistance(typed, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
    if (typed.length >= 3 && candidate.startsWith(typed)) extending.push(candidate);
  }
  if (best !== null && bestDistance <= limit) return best;
  return extending.length === 1 ? extending[0]! : null;
}
