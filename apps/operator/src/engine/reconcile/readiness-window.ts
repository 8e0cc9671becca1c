import type { ProviderProfile } from '@egress-proxies/contract';

/**
 * How long an instance may stay Provisioning (or Running without an address) before it is
 * replaced, by the profile's readiness axis: `immediate` backends answer in seconds, so a few
 * minutes means something is wrong; `provisioning-window` ones boot a VM (and may fetch an
 * image first), so they get a quarter of an hour.
 */
export const READINESS_WINDOW_MS: Record<ProviderProfile['readiness'], number> = {
  immediate: 3 * 60_000,
  'provisioning-window': 15 * 60_000,
};

/** How long a Stopped instance may come back by itself before it is replaced. */
export const STOPPED_GRACE_MS = 5 * 60_000;

export function readinessWindowMs(profile: Pick<ProviderProfile, 'readiness'> | undefined): number {
  return (
    READINESS_WINDOW_MS[profile?.readiness ?? 'provisioning-window'] ??
    READINESS_WINDOW_MS['provisioning-window']
  );
}

/** `1h2m3s` style, for messages. */
export function formatWindow(ms: number): string {
  const s = Math.round(ms / 1000);
  const parts: string[] = [];
  if (s >= 3600) parts.push(`${Math.floor(s / 3600)}h`);
  if (s % 3600 >= 60) parts.push(`${Math.floor((s % 3600) / 60)}m`);
  if (s % 60 || parts.length === 0) parts.push(`${s % 60}s`);
  return parts.join('');
}
