import { sleep } from '@egress-proxies/testenv-libvirt';
import { TestEnvVmError } from './errors.js';

export interface ProgressWaitOptions<T> {
  /** What is awaited, for the failure message ("the guest agent to answer"). */
  what: string;
  /** One try: a value when done, undefined when not yet. A throw counts as "not yet" (kept as `last`). */
  attempt: () => Promise<T | undefined>;
  /** Errors from `attempt` that end the wait at once (the VM exited) instead of counting as "not yet". */
  fatal?: (e: unknown) => boolean;
  /**
   * A fingerprint of the guest's progress (console size, cloud-init's stage record). Any change
   * moves the idle deadline forward, so a slow but busy guest on a loaded host is not failed.
   */
  progress: () => Promise<string | number>;
  /** Fails when `progress` has not changed for this long. */
  idleTimeoutMs: number;
  /** Fails after this long whatever the progress: a guest stuck in a loop must not hang CI. */
  timeoutMs: number;
  intervalMs?: number;
  signal?: AbortSignal;
  /** Appended to a timeout message (the serial console tail). */
  explain?: () => Promise<string>;
  now?: () => number;
}

/**
 * Polls until `attempt` yields a value. The deadline is measured from the last observed progress,
 * not from the start: wall time says little about a TCG guest sharing two cores with other suites,
 * a console that stopped moving says a lot.
 */
export async function waitWithProgress<T>(o: ProgressWaitOptions<T>): Promise<T> {
  for (const [name, v] of [
    ['idleTimeoutMs', o.idleTimeoutMs],
    ['timeoutMs', o.timeoutMs],
  ] as const) {
    if (!Number.isFinite(v) || v <= 0) {
      throw new TestEnvVmError('INVALID_ARGUMENT', `${name} must be a positive number of ms, got ${v}`);
    }
  }
  const now = o.now ?? Date.now;
  const started = now();
  let lastProgressAt = started;
  let fingerprint: string | number | undefined;
  let last: unknown;
  for (;;) {
    o.signal?.throwIfAborted();
    try {
      const done = await o.attempt();
      if (done !== undefined) return done;
    } catch (e) {
      if (o.signal?.aborted) throw o.signal.reason;
      if (o.fatal?.(e)) throw e;
      last = e;
    }
    const seen = await o.progress().catch(() => fingerprint);
    if (seen !== fingerprint) {
      fingerprint = seen;
      lastProgressAt = now();
    }
    const t = now();
    const idle = t - lastProgressAt;
    if (idle >= o.idleTimeoutMs || t - started >= o.timeoutMs) {
      const why =
        idle >= o.idleTimeoutMs
          ? `no guest progress for ${idle} ms (idle limit ${o.idleTimeoutMs} ms)`
          : `still not done after ${t - started} ms (limit ${o.timeoutMs} ms), though the guest kept making progress`;
      const lastText = last === undefined ? '' : ` (last: ${(last as Error)?.message ?? String(last)})`;
      const extra = o.explain ? `\n${await o.explain()}` : '';
      throw new TestEnvVmError('AGENT_TIMEOUT', `waiting for ${o.what}: ${why}${lastText}${extra}`, {
        cause: last,
      });
    }
    await sleep(o.intervalMs ?? 2000, o.signal);
  }
}
