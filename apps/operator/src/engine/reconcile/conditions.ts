import type { Condition } from '../../api/proxy.js';

export const ConditionType = {
  Provisioned: 'Provisioned',
  Healthy: 'Healthy',
  QuotaExceeded: 'QuotaExceeded',
  /** True exactly while the phase is Ready: what `kubectl wait --for=condition=Ready` reads. */
  Ready: 'Ready',
} as const;

/**
 * Sets condition `type` in `conditions` (a new list is returned). The transition time moves only
 * when the status flips, so `kubectl describe` shows how long a condition has held.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  next: Omit<Condition, 'lastTransitionTime'>,
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const prev = i >= 0 ? list[i] : undefined;
  const lastTransitionTime =
    prev && prev.status === next.status ? prev.lastTransitionTime : now.toISOString().replace(/\.\d+Z$/, 'Z');
  const c: Condition = { ...next, lastTransitionTime };
  if (c.message === undefined) delete c.message;
  if (i >= 0) list[i] = c;
  else list.push(c);
  return list;
}

export function getCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Drops condition `type`. */
export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}
