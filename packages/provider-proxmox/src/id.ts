import { ErrorCode, permanentError } from '@egress-proxies/contract';

// No node in the ID: VMs migrate, so the node is resolved from /cluster/resources on every call.
const VMID_RE = /^[1-9][0-9]{2,8}$/;

export interface ParsedId {
  vmid: number;
  name: string;
}

export function formatProviderId(vmid: number, name: string): string {
  return `vms/${vmid}/${name}`;
}

/** Parses `vms/<vmid>/<name>`; anything else is Permanent `INVALID_ID`. */
export function parseProviderId(id: string): ParsedId {
  const parts = typeof id === 'string' ? id.split('/') : [];
  const bad = () =>
    permanentError(`invalid provider ID ${JSON.stringify(id)}: want vms/<vmid>/<name>`, {
      code: ErrorCode.InvalidId,
    });
  if (parts.length !== 3 || parts[0] !== 'vms') throw bad();
  const [, v, name] = parts as [string, string, string];
  if (!VMID_RE.test(v) || name === '') throw bad();
  return { vmid: Number(v), name };
}
