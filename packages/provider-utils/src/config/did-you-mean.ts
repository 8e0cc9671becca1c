import { formatValue } from './format-value.js';

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j] as number;
      row[j] = Math.min(
        (row[j] as number) + 1,
        (row[j - 1] as number) + 1,
        prev + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      prev = tmp;
    }
  }
  return row[b.length] as number;
}

/** The candidate `word` most likely meant: a case-insensitive match, else one within two edits. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  const hit = candidates.find((c) => c.toLowerCase() === lower);
  if (hit) return hit;
  let best: string | undefined;
  let bestDist = 3;
  for (const c of candidates) {
    const d = editDistance(lower, c.toLowerCase());
    if (d < bestDist) {
      best = c;
      bestDist = d;
    }
  }
  return best;
}

/** `unknown key "sshKeyfile" (did you mean "sshKeyFile"?) (known: ...)`. */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const guess = closest(key, known);
  return `unknown key ${formatValue(key)}${guess ? ` (did you mean ${formatValue(guess)}?)` : ''} (known: ${known.join(', ')})`;
}
