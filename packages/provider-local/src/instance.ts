import type { Instance, InstanceEgress } from '@egress-proxies/contract';
import { InstanceState } from '@egress-proxies/contract';
import type { Engine } from './config.js';
import { formatId } from './id.js';
import { isIP } from './is-ip.js';
import { connectAddress } from './process.js';
import type { InstanceRecord } from './state-file.js';

/**
 * What this provider reports: the contract's Instance plus the port (the contract's Instance
 * has an address but no port, and a local proxy's port is allocated, not requested).
 */
export interface LocalInstance extends Instance {
  /** The TCP port the proxy listens on; present when one was allocated. */
  port?: number;
  /** The engine the proxy runs on. */
  engine?: Engine;
}

export function toInstance(
  name: string,
  record: InstanceRecord,
  state: InstanceState,
  bindAddress: string,
): LocalInstance {
  return {
    id: formatId(name),
    uid: record.uid,
    state,
    ...(state === InstanceState.Running ? { ip: connectAddress(record, bindAddress) } : {}),
    ...(record.createdAt ? { createdAt: record.createdAt } : {}),
    ...(record.installation ? { installation: record.installation } : {}),
    ...(record.port ? { port: record.port } : {}),
    ...(record.engine ? { engine: record.engine } : {}),
    ...egressOf(record),
  };
}

/** The addresses the proxy leaves from, as recorded: its own source address and/or the prefix. */
function egressOf(record: InstanceRecord): { egress?: InstanceEgress } {
  const egress: InstanceEgress = {};
  const family = record.localAddress ? isIP(record.localAddress) : 0;
  if (family === 4) egress.ipv4 = record.localAddress;
  if (family === 6) egress.ipv6 = record.localAddress;
  if (record.egressIpv6Prefix) egress.ipv6Prefix = record.egressIpv6Prefix;
  return Object.keys(egress).length > 0 ? { egress } : {};
}
