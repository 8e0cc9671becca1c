import { parseDuration } from '../api/duration.js';
import type { ProxyPoolSpec } from '../api/proxy-pool.js';
import type { GatewaySettings, WakeSettings } from './gateway-server.js';

/** A pool's spec.gateway, defaults filled. */
export type GatewaySpec = NonNullable<ProxyPoolSpec['gateway']>;

/** What the gateway runs with: `overrides` where given, else the pool's spec.gateway, else the defaults. */
export function specSettings(
  spec: GatewaySpec | undefined,
  overrides: GatewaySettings = {},
): Required<GatewaySettings> {
  return {
    selection: overrides.selection ?? spec?.selection ?? 'round-robin',
    sessionTtlMs: overrides.sessionTtlMs ?? parseDuration(spec?.sessionTTL ?? '10m'),
    cooldownMs: overrides.cooldownMs ?? parseDuration(spec?.cooldown ?? '60s'),
    banStatuses: overrides.banStatuses ?? spec?.banStatuses ?? [403, 429],
    rotate: overrides.rotate ?? spec?.rotate ?? 'per-request',
  };
}

/** Wake on demand from a pool's spec.autoscale: its wakeTimeout; no hold without autoscale. */
export function wakeSettings(autoscale: ProxyPoolSpec['autoscale']): Required<WakeSettings> {
  return { wakeTimeoutMs: autoscale ? parseDuration(autoscale.wakeTimeout) : 0 };
}
