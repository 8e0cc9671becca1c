import { ErrorCode, permanentError } from '@egress-proxies/contract';
import { ApiError } from './api-error.js';
import type { VmConfig } from './backend.js';
import type { Context } from './context.js';
import { isNotExist } from './errors.js';

/**
 * A VMID `/cluster/resources` did not list, read directly. That listing silently leaves out
 * every VM the token cannot audit (reference §2), so its silence is not "does not exist": the
 * config read answers 403 (permission checks run before the handler, on any node) when VM.Audit
 * is missing, and "does not exist" only when it really does not. Returns undefined only then.
 */
export async function readUnlisted(
  ctx: Context,
  vmid: number,
  nodes: readonly string[],
  what: string,
): Promise<{ node: string; cfg: VmConfig } | undefined> {
  for (const node of nodes) {
    try {
      return { node, cfg: await ctx.api.vmConfig(ctx.signal, node, vmid) };
    } catch (err) {
      if (ApiError.isInstance(err) && err.status === 403) {
        throw permanentError(
          `the API token lacks VM.Audit on /vms/${vmid}, so ${what} cannot be read (Proxmox leaves it out of /cluster/resources): grant VM.Audit to the token`,
          {
            code: ErrorCode.Forbidden,
            cause: err,
            details: { vmid, node, privilege: 'VM.Audit', httpStatus: 403 },
          },
        );
      }
      if (!isNotExist(err)) throw err;
    }
  }
  return undefined;
}
