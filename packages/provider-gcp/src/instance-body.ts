import {
  type CreateRequest,
  INSTALLATION_LABEL,
  MANAGED_LABEL,
  MANAGED_VALUE,
  UID_LABEL,
} from '@egress-proxies/contract';
import type { ComputeInstance } from './backend.js';
import { type ResolvedGcpConfig, subnetworkFor } from './config.js';
import { labelValue } from './labels.js';

export const USER_DATA_KEY = 'user-data';
export const VM_SCOPES = ['https://www.googleapis.com/auth/cloud-platform'];

/** A machine type name or its zonal path -> the zonal path the API wants. */
export function machineTypePath(zone: string, machineType: string): string {
  return machineType.includes('/') ? machineType : `zones/${zone}/machineTypes/${machineType}`;
}

/**
 * The instance resource for one proxy: pure, so the exact body is testable without a server.
 * One NIC (with an ephemeral NAT IP unless internal mode), one auto-deleted boot disk, the
 * ownership labels, the network tag the firewall rule targets, and the user-data in metadata.
 */
export function buildInstanceBody(
  cfg: ResolvedGcpConfig,
  req: CreateRequest,
  placement: { zone: string; machineType: string; image: string },
): ComputeInstance {
  const { zone, machineType, image } = placement;
  const labels: Record<string, string> = {
    ...cfg.labels,
    [MANAGED_LABEL]: MANAGED_VALUE,
    [UID_LABEL]: labelValue(req.uid),
  };
  if (req.installation) labels[INSTALLATION_LABEL] = labelValue(req.installation);

  const nic: ComputeInstance['networkInterfaces'] extends (infer T)[] | undefined ? T : never = {
    network: cfg.network,
    ...(cfg.subnetwork ? { subnetwork: subnetworkFor(cfg, zone) } : {}),
    accessConfigs: cfg.ipMode === 'external' ? [{ type: 'ONE_TO_ONE_NAT', name: 'External NAT' }] : [],
  };

  const body: ComputeInstance = {
    name: req.name,
    machineType: machineTypePath(zone, machineType),
    labels,
    tags: { items: [cfg.networkTag] },
    networkInterfaces: [nic],
    disks: [
      {
        boot: true,
        autoDelete: true,
        type: 'PERSISTENT',
        initializeParams: { sourceImage: image, diskSizeGb: String(cfg.diskSizeGb) },
      },
    ],
    metadata: { items: req.cloudInit !== undefined ? [{ key: USER_DATA_KEY, value: req.cloudInit }] : [] },
  };
  if (cfg.serviceAccount) body.serviceAccounts = [{ email: cfg.serviceAccount, scopes: VM_SCOPES }];
  return body;
}

/** The body with the user-data replaced, for V2 logs. */
export function redactedBody(body: ComputeInstance): ComputeInstance {
  return {
    ...body,
    metadata: {
      items: (body.metadata?.items ?? []).map((i) =>
        i.key === USER_DATA_KEY ? { key: i.key, value: '[redacted]' } : i,
      ),
    },
  };
}
