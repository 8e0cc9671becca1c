import { sleep } from '@egress-proxies/provider-utils';

/**
 * Polls `fn` every `everyMs` for up to `ms`; whether it came true. A bound on a wait, never a
 * pass condition.
 */
export async function within(ms: number, fn: () => boolean, everyMs = 2): Promise<boolean> {
  const until = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > until) return false;
    await sleep(everyMs);
  }
  return true;
}
