/**
 * Polls `probe` until it returns a value. It fails when what the probe reports as `progress`
 * has not changed for `stallMs` (default 5 minutes), or after `maxMs` (default 30 minutes) in
 * any case: a slow step on a loaded machine is waited for, a stuck one fails with its state.
 */
export async function waitForProgress<T>(
  what: string,
  probe: () => Promise<{ done?: T; progress: string }>,
  o: { stallMs?: number; maxMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const stallMs = o.stallMs ?? 5 * 60_000;
  const started = Date.now();
  const maxMs = o.maxMs ?? 30 * 60_000;
  let last = '';
  let changedAt = started;
  for (;;) {
    let r: { done?: T; progress: string };
    try {
      r = await probe();
    } catch (e) {
      r = { progress: `error: ${(e as Error).message}` };
    }
    if (r.done !== undefined) return r.done;
    const now = Date.now();
    if (r.progress !== last) {
      last = r.progress;
      changedAt = now;
    }
    if (now - changedAt > stallMs)
      throw new Error(`${what}: no progress for ${Math.round(stallMs / 1000)} s; last state: ${last}`);
    if (now - started > maxMs)
      throw new Error(`${what}: not done after ${Math.round(maxMs / 1000)} s; last state: ${last}`);
    await new Promise((res) => setTimeout(res, o.intervalMs ?? 1000));
  }
}
