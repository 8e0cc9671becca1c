import type { Instance } from '@egress-proxies/contract';
import { InstanceState } from '@egress-proxies/contract';
import type { Engine } from './config.js';
import { formatId } from './id.js';
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
  };
}
