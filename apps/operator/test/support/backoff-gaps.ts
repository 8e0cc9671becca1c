/**
 * One create call as a chaos run's backend saw it: when it started, when its failure reached the
 * operator, for which instance name, in which operator's life (a new controller, or a new operator
 * process, starts a new rate limiter), and how it ended.
 */
export interface CreateCall {
  name: string;
  /** When the call started, in ms on the clock of its `epoch`. */
  at: number;
  /**
   * When its outcome reached the caller (the answer, or the abort of a hung call), on the same
   * clock; unknown for a call whose end nobody saw (then `at` stands in).
   */
  endedAt?: number;
  /** The operator's life the call was made in: gaps across two lives are not backoff gaps. */
  epoch: number | string;
  outcome: 'transient' | 'quota' | 'permanent' | 'async' | 'hang' | 'done' | 'error';
}

/** The first delay of each backoff tier the operator was configured with. */
export interface BackoffBases {
  transientMs: number;
  quotaMs: number;
}

/**
 * The creates of one Proxy that came sooner after a failed create than its backoff allows: the
 * gap from the end of a Transient or QuotaExceeded create (a hung one ended by its deadline is
 * Transient) to the start of the next create of the same name, in one operator's life, for names
 * not in `exempt` (Proxies edited or deleted are acted on at once, by design).
 */
export function backoffViolations(
  calls: readonly CreateCall[],
  exempt: ReadonlySet<string>,
  bases: BackoffBases,
): { checked: number; violations: string[] } {
  const last = new Map<string, CreateCall>();
  const violations: string[] = [];
  let checked = 0;
  for (const call of [...calls].sort((a, b) => a.at - b.at)) {
    const key = `${call.epoch}\n${call.name}`;
    const prev = last.get(key);
    last.set(key, call);
    if (!prev || exempt.has(call.name)) continue;
    const base =
      prev.outcome === 'quota'
        ? bases.quotaMs
        : prev.outcome === 'transient' || prev.outcome === 'hang'
          ? bases.transientMs
          : undefined;
    if (base === undefined) continue;
    checked++;
    const gap = call.at - (prev.endedAt ?? prev.at);
    // A timer may fire a millisecond early.
    if (gap < base - 1)
      violations.push(
        `${call.name} was created again ${gap.toFixed(1)} ms after a ${prev.outcome} failure (backoff ${base} ms)`,
      );
  }
  return { checked, violations };
}
