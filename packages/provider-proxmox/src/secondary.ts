import { ErrorCode, permanentError, type SecondaryResource } from '@egress-proxies/contract';
import { NODE_RE } from './config.js';
import type { Context } from './context.js';
import { classify } from './errors.js';
import { seedOwner } from './seed.js';
import { waitTask } from './task.js';

const KIND = 'seed-iso';

/** `seed/<node>/<volid>`: the node the volume was listed on, and the full volume id. */
export function formatSecondaryId(node: string, volid: string): string {
  return `seed/${node}/${volid}`;
}

export function parseSecondaryId(ctx: Context, id: string): { node: string; volid: string; owner: string } {
  // Parsed whole: anything around a listed ID (or an ID that is no string) is refused, never trimmed.
  const m = typeof id === 'string' ? /^seed\/([^/\s]+)\/([^/:\s]+:iso\/[^/\s]+)$/.exec(id) : null;
  const node = m?.[1];
  const volid = m?.[2];
  const owner = volid ? seedOwner(volid) : undefined;
  const storage = volid?.split(':')[0];
  if (
    !node ||
    !volid ||
    !owner ||
    !NODE_RE.test(node) ||
    !ctx.cfg.nodes.includes(node) ||
    storage !== ctx.cfg.isoStorage ||
    !volid.includes(':iso/')
  ) {
    throw permanentError(
      `invalid secondary resource ID ${JSON.stringify(id)}: want seed/<node>/<isoStorage>:iso/<name>-seed.iso`,
      { code: ErrorCode.InvalidId },
    );
  }
  return { node, volid, owner };
}

/**
 * Seed ISOs with no VM of that name to use them: a VM destroyed outside the operator, or one that
 * migrated away from node-local storage. On shared storage a seed is in use while its VM exists
 * on any node, and is listed once.
 */
export async function listSecondary(ctx: Context): Promise<SecondaryResource[]> {
  const vms = await vmNames(ctx);
  const out: SecondaryResource[] = [];
  const seen = new Set<string>();
  let unreachable: unknown;
  let reached = 0;
  for (const node of ctx.cfg.nodes) {
    let shared: boolean;
    let entries: Awaited<ReturnType<typeof ctx.api.storageContent>>;
    try {
      shared = Number((await ctx.api.storageStatus(ctx.signal, node, ctx.cfg.isoStorage)).shared) === 1;
      entries = await ctx.api.storageContent(ctx.signal, node, ctx.cfg.isoStorage, 'iso');
    } catch (err) {
      ctx.signal.throwIfAborted();
      if (classify('listSecondary', err).code !== ErrorCode.Unreachable) throw err;
      ctx.logger.log(1, 'proxmox node unreachable, left out of the list', {
        node,
        error: (err as Error).message,
      });
      unreachable = err;
      continue;
    }
    reached++;
    for (const e of entries) {
      const owner = seedOwner(e.volid);
      if (!owner || (shared && seen.has(e.volid))) continue;
      seen.add(e.volid);
      if (inUse(vms, owner, node, shared)) continue;
      const r: SecondaryResource = { id: formatSecondaryId(node, e.volid), kind: KIND, instanceName: owner };
      if (e.ctime) r.createdAt = new Date(e.ctime * 1000);
      out.push(r);
    }
  }
  // The list-partial policy: an unreachable node is left out, unless every node is.
  if (reached === 0 && unreachable !== undefined) throw unreachable;
  ctx.logger.log(1, 'proxmox orphaned seeds listed', { count: out.length });
  return out;
}

interface NamedVm {
  node: string;
  /** undefined: the name could not be learnt, so every seed on that node counts as in use. */
  name: string | undefined;
}

/**
 * Every VM's name and node. `/cluster/resources` has no name for a VM pvestatd has not reported
 * yet (about 10 s after a clone, reference §2), so those names come from the config; a config
 * that cannot be read keeps that node's seeds (better a seed too many than a live VM's seed gone).
 */
async function vmNames(ctx: Context): Promise<NamedVm[]> {
  const all = (await ctx.api.clusterResources(ctx.signal)).filter(
    (r) => r.type === 'qemu' && r.template !== 1,
  );
  const out: NamedVm[] = [];
  for (const r of all) {
    if (r.name && r.status !== 'unknown') {
      out.push({ node: r.node, name: r.name });
      continue;
    }
    try {
      const cfg = await ctx.api.vmConfig(ctx.signal, r.node, r.vmid);
      out.push({ node: r.node, name: typeof cfg.name === 'string' ? cfg.name : r.name });
    } catch {
      ctx.signal.throwIfAborted();
      out.push({ node: r.node, name: undefined });
    }
  }
  return out;
}

function inUse(vms: NamedVm[], owner: string, node: string, shared: boolean): boolean {
  return vms.some((v) => (shared || v.node === node) && (v.name === undefined || v.name === owner));
}

/** Deletes one listed seed, re-checked under the name's lock so a Create in flight keeps its seed. */
export async function deleteSecondary(ctx: Context, id: string): Promise<void> {
  const { node, volid, owner } = parseSecondaryId(ctx, id);
  await ctx.names.withLock(
    owner,
    async () => {
      const vms = await vmNames(ctx);
      const status = await ctx.api.storageStatus(ctx.signal, node, ctx.cfg.isoStorage);
      if (inUse(vms, owner, node, Number(status.shared) === 1)) {
        ctx.logger.log(1, 'proxmox seed in use again, kept', { node, volid });
        return;
      }
      await waitTask(
        ctx,
        await ctx.api.deleteVolume(ctx.signal, node, ctx.cfg.isoStorage, volid.slice(volid.indexOf(':') + 1)),
      );
      ctx.logger.log(1, 'proxmox orphaned seed deleted', { node, volid });
    },
    { signal: ctx.signal },
  );
}
