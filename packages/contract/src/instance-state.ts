/**
 * The four states a provider reports for an instance.
 *
 * - `Provisioning`: accepted by the backend but not yet usable (booting, no address yet).
 * - `Running`: up and reporting the address a client connects to.
 * - `Stopped`: exists but is not running (shut off, paused, suspended); it may come back.
 * - `Terminated`: finished for good (a Pod that exited, a GCE instance TERMINATED); it will not
 *   come back by itself and the reconciler replaces it.
 */
export const InstanceState = {
  Provisioning: 'Provisioning',
  Running: 'Running',
  Stopped: 'Stopped',
  Terminated: 'Terminated',
} as const;

export type InstanceState = (typeof InstanceState)[keyof typeof InstanceState];

/** Every state, in lifecycle order. */
export const INSTANCE_STATES: readonly InstanceState[] = Object.values(InstanceState);

/** True for one of the four state strings. */
export function isInstanceState(value: unknown): value is InstanceState {
  return typeof value === 'string' && (INSTANCE_STATES as readonly string[]).includes(value);
}
