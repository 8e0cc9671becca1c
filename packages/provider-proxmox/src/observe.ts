import type { Logger } from '@egress-proxies/contract';
import { traceFields } from '@egress-proxies/provider-utils';
import { ApiError } from './api-error.js';
import type { Backend } from './backend.js';

// Which positional arguments identify the call in its log line. The upload's bytes, config
// values and anything else are left out: cloud-init travels in the upload body.
const ID_ARGS: Partial<Record<keyof Backend, string[]>> = {
  vmConfig: ['node', 'vmid'],
  setVmConfig: ['node', 'vmid'],
  vmStatus: ['node', 'vmid'],
  agentInterfaces: ['node', 'vmid'],
  cloneVm: ['node', 'template'],
  resizeDisk: ['node', 'vmid', 'disk', 'size'],
  startVm: ['node', 'vmid'],
  stopVm: ['node', 'vmid'],
  destroyVm: ['node', 'vmid'],
  uploadIso: ['node', 'storage', 'filename'],
  deleteVolume: ['node', 'storage', 'volume'],
  storageContent: ['node', 'storage'],
  storageStatus: ['node', 'storage'],
  taskStatus: ['node', 'upid'],
  nodeStatus: ['node'],
  permissions: ['path'],
};

/** Wraps the seam so every call writes one `proxmox api call` line at V1. Never logs bodies. */
export function observe(api: Backend, logger: Logger): Backend {
  if (logger.verbosity < 1) return api;
  return new Proxy(api, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      const call = String(prop);
      return async (signal: AbortSignal, ...args: unknown[]) => {
        const fields: Record<string, unknown> = { call };
        (ID_ARGS[call as keyof Backend] ?? []).forEach((k, i) => {
          fields[k] = args[i];
        });
        const t0 = performance.now();
        try {
          const r = await (v as (...a: unknown[]) => Promise<unknown>).call(target, signal, ...args);
          if (typeof r === 'string' && r.startsWith('UPID:')) fields.upid = r;
          logger.log(1, 'proxmox api call', {
            ...fields,
            ...traceFields(),
            durationMs: Math.round(performance.now() - t0),
          });
          return r;
        } catch (err) {
          const extra: Record<string, unknown> = { error: (err as Error).message };
          if (ApiError.isInstance(err)) extra.httpStatus = err.status;
          logger.log(1, 'proxmox api call', {
            ...fields,
            ...traceFields(),
            durationMs: Math.round(performance.now() - t0),
            ...extra,
          });
          throw err;
        }
      };
    },
  });
}
