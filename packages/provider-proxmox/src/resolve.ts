import { ErrorCode, transientError } from '@egress-proxies/contract';
import type { ClusterResource } from './backend.js';
import type { Context } from './context.js';

/**
 * The node holding a VMID right now (VMs migrate), from one `/cluster/resources` read. A lock
 * other than `suspended` is Transient; so is `status: unknown`, which is what guests of an
 * unreachable node turn into (reference §2).
 */
export async function resolve(ctx: Context, vmid: number): Promise<ClusterResource | undefined> {
  const all = await ctx.api.clusterResources(ctx.signal);
  const e = all.find((r) => r.vmid === vmid && r.type === 'qemu');
  if (!e) return undefined;
  assertSettled(e.node, vmid, e.lock, e.status);
  return e;
}

export function assertSettled(node: string, vmid: number, lock: unknown, status?: string): void {
  if (typeof lock === 'string' && lock !== '' && lock !== 'suspended') {
    throw transientError(`VM ${vmid} on node ${node} is locked (${lock})`, {
      code: ErrorCode.Busy,
      details: { vmid, node, lock },
    });
  }
  if (status === 'unknown') {
    throw transientError(`VM ${vmid}'s node ${node} reports status unknown (node unreachable?)`, {
      code: ErrorCode.Unreachable,
      details: { vmid, node },
    });
  }
}
