import { createHash } from 'node:crypto';
import type { ProxySpec } from '../../api/proxy.js';

/**
 * A digest of the spec fields an instance is made from (provider, placement, port, cloud-init).
 * A change replaces the instance; a change elsewhere (the probe) does not. The digest is one-way,
 * so the status never reveals the cloud-init it covers.
 */
export function instanceSpecHash(spec: ProxySpec): string {
  const p = spec.placement ?? {};
  const canonical = JSON.stringify([
    spec.provider ?? '',
    p.region ?? '',
    p.zone ?? '',
    p.machineType ?? '',
    p.image ?? '',
    spec.port,
    spec.cloudInit?.inline ?? '',
    spec.cloudInit?.secretRef ? `${spec.cloudInit.secretRef.name}/${spec.cloudInit.secretRef.key}` : '',
  ]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}
