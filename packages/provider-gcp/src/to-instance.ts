import {
  INSTALLATION_LABEL,
  type Instance,
  InstanceState,
  MANAGED_LABEL,
  MANAGED_VALUE,
  UID_LABEL,
} from '@egress-proxies/contract';
import type { ComputeInstance } from './backend.js';
import type { ResolvedGcpConfig } from './config.js';
import { formatId } from './id.js';
import { mapState } from './state.js';

/** True when the instance carries the managed label. */
export function isManaged(inst: ComputeInstance): boolean {
  return inst.labels?.[MANAGED_LABEL] === MANAGED_VALUE;
}

/** The proxy's address: the first NIC's NAT IP, or its VPC address in internal mode. */
export function addressOf(inst: ComputeInstance, ipMode: ResolvedGcpConfig['ipMode']): string | undefined {
  const nic = inst.networkInterfaces?.[0];
  if (!nic) return undefined;
  const ip = ipMode === 'internal' ? nic.networkIP : nic.accessConfigs?.[0]?.natIP;
  return ip || undefined;
}

/** A Compute instance -> the contract's view of it. */
export function toInstance(
  inst: ComputeInstance,
  zone: string,
  ipMode: ResolvedGcpConfig['ipMode'],
): Instance {
  const ip = addressOf(inst, ipMode);
  const state = mapState(inst.status, ip);
  const out: Instance = {
    id: formatId(zone, inst.name),
    uid: inst.labels?.[UID_LABEL] ?? '',
    state,
  };
  if (state === InstanceState.Running && ip) out.ip = ip;
  const created = inst.creationTimestamp ? new Date(inst.creationTimestamp) : undefined;
  if (created && !Number.isNaN(created.getTime())) out.createdAt = created;
  const installation = inst.labels?.[INSTALLATION_LABEL];
  if (installation) out.installation = installation;
  return out;
}
