import { type Instance, InstanceState } from '@egress-proxies/contract';
import type { ClusterResource } from './backend.js';
import type { Context } from './context.js';
import { formatProviderId } from './id.js';
import { hasTag, parseDescription } from './marks.js';

const CONCURRENCY = 8;

/** A QEMU VM, not a template, named, tagged ours or named like ours. A nameless entry is a clone in progress. */
export function isCandidate(r: ClusterResource): boolean {
  return r.type === 'qemu' && r.template !== 1 && !!r.name && (hasTag(r.tags) || r.name.startsWith('proxy-'));
}

/**
 * Names each node whose guests the list cannot see: an offline node's guests (like a clone
 * pvestatd has not reported yet) come without a name or status, so they cannot be candidates.
 * One V1 line per node (2.9: a line about a target carries it).
 */
function leftOut(ctx: Context, resources: readonly ClusterResource[]): void {
  const blind = new Map<string, number>();
  for (const r of resources)
    if (r.type === 'qemu' && !r.name && r.status === 'unknown')
      blind.set(r.node, (blind.get(r.node) ?? 0) + 1);
  for (const [node, guests] of blind)
    ctx.logger.log(
      1,
      'proxmox guests left out of the list: no status reported (node offline, or a clone in progress)',
      {
        node,
        guests,
      },
    );
}

/**
 * One `/cluster/resources` read (fails the whole call when it fails) plus one config read per
 * candidate; the mark in the description decides. An unreadable candidate is skipped unless the
 * call itself ended. The state comes from the resources entry only (no status or agent call).
 */
export async function listInstances(ctx: Context): Promise<Instance[]> {
  const resources = await ctx.api.clusterResources(ctx.signal);
  leftOut(ctx, resources);
  const candidates = resources.filter(isCandidate);
  const out: (Instance | undefined)[] = new Array(candidates.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < candidates.length; i = next++) {
      const r = candidates[i]!;
      try {
        const cfg = await ctx.api.vmConfig(ctx.signal, r.node, r.vmid);
        const mark = parseDescription(typeof cfg.description === 'string' ? cfg.description : undefined);
        if (!mark.managed || typeof cfg.name !== 'string') continue;
        const inst: Instance = {
          id: formatProviderId(r.vmid, cfg.name),
          uid: mark.uid,
          state: r.status === 'stopped' ? InstanceState.Stopped : InstanceState.Provisioning,
        };
        if (mark.createdAt) inst.createdAt = mark.createdAt;
        if (mark.installation) inst.installation = mark.installation;
        if (mark.egress) inst.egress = { ...mark.egress };
        out[i] = inst;
      } catch (err) {
        ctx.signal.throwIfAborted();
        ctx.logger.log(1, 'proxmox vm skipped in list', {
          vmid: r.vmid,
          node: r.node,
          error: (err as Error).message,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, candidates.length) }, worker));
  const list = out.filter((x): x is Instance => x !== undefined);
  ctx.logger.log(1, 'proxmox vms listed', { count: list.length });
  return list;
}
