import { isPermanent } from '@egress-proxies/contract';
import type { Context } from './context.js';
import { releasePicks } from './egress.js';
import { classify, isNotExist } from './errors.js';
import { parseProviderId } from './id.js';
import { parseDescription } from './marks.js';
import { assertSettled, resolve } from './resolve.js';
import { seedFileName } from './seed.js';
import { waitTask } from './task.js';

/**
 * Delete: stop, the seed on the VM's node, then destroy with purge. The seed goes before the
 * destroy: a destroyed VM is NotFound to Get and nothing would call Delete again for its seed.
 * With no VM of ours, the seed is deleted on every configured node.
 */
export async function deleteInstance(ctx: Context, id: string): Promise<void> {
  const { vmid, name } = parseProviderId(id);
  await ctx.names.withLock(name, () => destroy(ctx, vmid, name), { signal: ctx.signal });
}

async function destroy(ctx: Context, vmid: number, name: string): Promise<void> {
  const e = await resolve(ctx, vmid);
  if (!e) return deleteSeedEverywhere(ctx, name);
  let cfg: Awaited<ReturnType<typeof ctx.api.vmConfig>>;
  try {
    cfg = await ctx.api.vmConfig(ctx.signal, e.node, vmid);
  } catch (err) {
    if (isNotExist(err)) return deleteSeedEverywhere(ctx, name);
    throw err;
  }
  assertSettled(e.node, vmid, cfg.lock);
  const mark = parseDescription(typeof cfg.description === 'string' ? cfg.description : undefined);
  if (cfg.name !== name || !mark.managed) {
    ctx.logger.log(1, 'proxmox vm not ours, left alone', { vmid, name, node: e.node });
    return deleteSeedEverywhere(ctx, name);
  }
  // A hibernated VM is stopped already; its `suspended` lock would refuse the stop (§12).
  // A VM removed by someone else from here on leaves only its seed to delete.
  if (cfg.lock !== 'suspended') {
    await gone(async () => {
      const st = await ctx.api.vmStatus(ctx.signal, e.node, vmid);
      if (st.status !== 'stopped') await runStop(ctx, e.node, vmid);
    });
  }
  await deleteSeed(ctx, e.node, name);
  await gone(async () => waitTask(ctx, await ctx.api.destroyVm(ctx.signal, e.node, vmid)));
  // The name's VM is gone: egress picks a failed create of it kept are free again.
  releasePicks(ctx.pending, name);
  ctx.logger.log(1, 'proxmox vm deleted', { vmid, name, node: e.node, destroyed: true });
}

async function runStop(ctx: Context, node: string, vmid: number): Promise<void> {
  await waitTask(ctx, await ctx.api.stopVm(ctx.signal, node, vmid));
}

/** `does not exist` (sync 500 or task) means the VM is gone already: that is the goal. */
async function gone(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!isNotExist(err)) throw err;
  }
}

/** A missing volume still ends in a successful task (§10), so no text is matched here. */
async function deleteSeed(ctx: Context, node: string, name: string): Promise<void> {
  await waitTask(
    ctx,
    await ctx.api.deleteVolume(ctx.signal, node, ctx.cfg.isoStorage, `iso/${seedFileName(name)}`),
  );
}

/** Every node is tried; one that fails is logged and skipped unless the call ended or it is Permanent. */
export async function deleteSeedEverywhere(ctx: Context, name: string): Promise<void> {
  for (const node of ctx.cfg.nodes) {
    try {
      await deleteSeed(ctx, node, name);
    } catch (err) {
      ctx.signal.throwIfAborted();
      const c = classify('delete', err);
      if (isPermanent(c)) throw c;
      ctx.logger.log(1, 'proxmox seed delete skipped', { node, name, error: c.message });
    }
  }
  ctx.logger.log(1, 'proxmox vm deleted', { name, destroyed: false });
}
