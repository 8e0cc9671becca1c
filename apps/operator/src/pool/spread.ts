/** Where a share of a pool's members is created. */
export interface SpreadTarget {
  provider: string;
  zone?: string;
  weight: number;
}

export const spreadKey = (t: { provider?: string; zone?: string }) => `${t.provider ?? ''}/${t.zone ?? ''}`;

/**
 * How many of `replicas` members each target should hold: proportional to weight, the remainder
 * going to the largest fractional shares (ties to the earlier entry), so the counts sum to replicas.
 */
export function spreadCounts(targets: readonly SpreadTarget[], replicas: number): number[] {
  const total = targets.reduce((s, t) => s + t.weight, 0);
  if (total === 0 || targets.length === 0) return targets.map(() => 0);
  const exact = targets.map((t) => (replicas * t.weight) / total);
  const counts = exact.map(Math.floor);
  let left = replicas - counts.reduce((s, n) => s + n, 0);
  const order = exact
    .map((e, i) => ({ i, frac: e - Math.floor(e) }))
    .sort((a, b) => b.frac - a.frac || a.i - b.i);
  for (const { i } of order) {
    if (left-- <= 0) break;
    counts[i] = (counts[i] ?? 0) + 1;
  }
  return counts;
}

/** The target with the largest shortfall given the members each holds now; undefined when none is short. */
export function nextTarget(
  targets: readonly SpreadTarget[],
  wanted: readonly number[],
  have: ReadonlyMap<string, number>,
): SpreadTarget | undefined {
  let best: SpreadTarget | undefined;
  let bestGap = 0;
  targets.forEach((t, i) => {
    const gap = (wanted[i] ?? 0) - (have.get(spreadKey(t)) ?? 0);
    if (gap > bestGap) {
      best = t;
      bestGap = gap;
    }
  });
  return best;
}
