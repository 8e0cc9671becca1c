import { type CreateRequest, ErrorCode, permanentError, transientError } from '@egress-proxies/contract';
import type { ClusterResource, VmConfig } from './backend.js';
import type { Context } from './context.js';
import { nicFromMark, type PlannedNic, planFor, releasePicks, withAllocation } from './egress.js';
import { isAlreadyExists, isAlreadyRunning, isNotExist, ProxmoxErrorCode } from './errors.js';
import { formatProviderId } from './id.js';
import { formatDescription, PROXMOX_TAG, parseDescription } from './marks.js';
import { type ResolvedPlacement, resolvePlacement } from './placement.js';
import { seedFileName } from './seed.js';
import { waitRunning, waitTask, waitUnlocked } from './task.js';
import { readUnlisted } from './unlisted.js';
import { bootDisk, diskSizeGiB, hasCloudInitDrive, pinMac, rewriteNet0 } from './vm-config.js';
import { VMID_PROBES, vmidFor } from './vmid.js';

interface Found {
  node: string;
  vmid: number;
  cfg: VmConfig;
}

/** Create: placement first (no request), then everything under the per-name lock. */
export async function createInstance(ctx: Context, req: CreateRequest): Promise<string> {
  const p = resolvePlacement(ctx.cfg, req);
  ctx.logger.log(2, 'proxmox create resolved', {
    name: req.name,
    node: p.node,
    template: p.template,
    machineType: p.machineTypeKey,
    cloudInitBytes: Buffer.byteLength(req.cloudInit ?? ''),
  });
  return ctx.names.withLock(req.name, () => createLocked(ctx, req, p), { signal: ctx.signal });
}

async function createLocked(ctx: Context, req: CreateRequest, p: ResolvedPlacement): Promise<string> {
  const resources = await ctx.api.clusterResources(ctx.signal);
  const adopted = await adoptByName(ctx, req, resources);
  if (adopted) {
    // Our marked VM of this name records its own egress: picks a failed attempt kept go back.
    releasePicks(ctx.pending, req.name);
    return ensureRunning(ctx, req, p, adopted, true, markedNic(ctx, adopted));
  }
  const tmpl = await checkTemplate(ctx, p, resources);
  // The allocation is written into the mark by the clone call itself (see withAllocation).
  const { found, nic } = await withAllocation(ctx, p.node, req.name, async (nic) => ({
    found: await allocate(ctx, req, p, resources, tmpl.node, nic),
    nic,
  }));
  return ensureRunning(
    ctx,
    req,
    p,
    found.vm,
    found.adopted,
    found.adopted ? markedNic(ctx, found.vm) : nic,
    tmpl.cfg,
  );
}

/** An adopted VM keeps what its mark recorded: a retried create delivers the same address. */
function markedNic(ctx: Context, vm: Found): PlannedNic | undefined {
  const mark = parseDescription(typeof vm.cfg.description === 'string' ? vm.cfg.description : undefined);
  return nicFromMark(ctx, vm.node, mark.egress, mark.mac);
}

/** Two VMs with our name are Permanent; one goes through the ownership check. */
async function adoptByName(
  ctx: Context,
  req: CreateRequest,
  resources: ClusterResource[],
): Promise<Found | undefined> {
  const named = resources.filter((r) => r.type === 'qemu' && r.name === req.name && r.template !== 1);
  if (named.length > 1) {
    throw permanentError(
      `two VMs carry the name ${req.name}: VMIDs ${named.map((r) => r.vmid).join(', ')}; remove the wrong one`,
      {
        code: ErrorCode.ForeignInstance,
      },
    );
  }
  const one = named[0];
  if (!one) return undefined;
  return inspect(ctx, req, one.node, one.vmid);
}

/**
 * The ownership check on a taken VMID: waits out its lock (a clone in progress is nameless),
 * then adopts our name with our mark and a matching or empty UID, returns undefined for another
 * name (probe past it), and refuses our name without the mark, with another UID, or hibernated.
 */
async function inspect(
  ctx: Context,
  req: CreateRequest,
  node: string,
  vmid: number,
): Promise<Found | undefined> {
  const cfg = await waitUnlocked(ctx, node, vmid, { waitOnClone: false });
  if (cfg.name !== req.name) return undefined;
  const mark = parseDescription(typeof cfg.description === 'string' ? cfg.description : undefined);
  if (!mark.managed) {
    throw permanentError(
      `VM ${vmid} on node ${node} is named ${req.name} but carries no ownership mark; it is left alone`,
      {
        code: ErrorCode.UnmarkedInstance,
        details: { vmid, node },
      },
    );
  }
  if (mark.uid !== '' && mark.uid !== req.uid) {
    throw permanentError(`VM ${vmid} on node ${node} is named ${req.name} but belongs to UID ${mark.uid}`, {
      code: ErrorCode.ForeignInstance,
      details: { vmid, node },
    });
  }
  if (cfg.lock === 'suspended') {
    throw permanentError(`VM ${vmid} on node ${node} (ours) is hibernated; delete it to have it replaced`, {
      code: ErrorCode.Permanent,
      details: { vmid, node },
    });
  }
  return { node, vmid, cfg };
}

interface Template {
  node: string;
  cfg: VmConfig;
}

/** Every template check runs before any clone, so a bad template never leaves a VM behind. */
async function checkTemplate(
  ctx: Context,
  p: ResolvedPlacement,
  resources: ClusterResource[],
): Promise<Template> {
  const entry = resources.find((r) => r.vmid === p.template);
  const where = `template ${p.templateKey} (VMID ${p.template})`;
  if (!entry) {
    // Left out of the listing may mean unreadable (no VM.Audit): FORBIDDEN then, naming it.
    const direct = await readUnlisted(
      ctx,
      p.template,
      [p.node, ...ctx.cfg.nodes.filter((n) => n !== p.node)],
      where,
    );
    // Transient, like a missing storage pool on kvm: templates are often made by automation
    // (Packer, a restore) that may finish after the operator started; the Checker names it.
    if (!direct) throw transientError(`${where} does not exist`, { code: ProxmoxErrorCode.TemplateNotFound });
    return checkTemplateConfig(ctx, where, p, { node: direct.node, cfg: direct.cfg });
  }
  if (entry.type !== 'qemu')
    throw transientError(`${where} does not exist`, { code: ProxmoxErrorCode.TemplateNotFound });
  let cfg: VmConfig;
  try {
    cfg = await ctx.api.vmConfig(ctx.signal, entry.node, p.template);
  } catch (err) {
    // Listed a moment ago, so a missing config now is a race (a migration): Transient.
    if (isNotExist(err)) {
      throw transientError(`${where} vanished from node ${entry.node}`, {
        code: ErrorCode.Transient,
        cause: err,
      });
    }
    throw err;
  }
  return checkTemplateConfig(ctx, where, p, { node: entry.node, cfg });
}

function checkTemplateConfig(ctx: Context, where: string, p: ResolvedPlacement, t: Template): Template {
  const { cfg } = t;
  if (Number(cfg.template) !== 1)
    throw permanentError(`${where} is a VM, not a template`, { code: ProxmoxErrorCode.TemplateInvalid });
  if (hasCloudInitDrive(cfg)) {
    throw permanentError(`${where} has a cloud-init drive; remove it, the seed ISO takes its place`, {
      code: ProxmoxErrorCode.TemplateInvalid,
    });
  }
  if ((ctx.cfg.bridge || ctx.cfg.vlanTag !== undefined) && typeof cfg.net0 !== 'string') {
    throw permanentError(`${where} has no net0 to put on the configured bridge/VLAN`, {
      code: ProxmoxErrorCode.TemplateInvalid,
    });
  }
  const plan = planFor(ctx, p.node);
  if (plan && typeof cfg.net0 !== 'string') {
    throw permanentError(`${where} has no net0 to carry the addresses of egress plan ${plan.name}`, {
      code: ProxmoxErrorCode.TemplateInvalid,
    });
  }
  if (p.machineType.diskGiB !== undefined) {
    const disk = bootDisk(cfg);
    if (!disk || diskSizeGiB(cfg[disk]) === undefined) {
      throw permanentError(`${where} has no boot disk with a size to grow to ${p.machineType.diskGiB} GiB`, {
        code: ProxmoxErrorCode.TemplateInvalid,
      });
    }
  }
  return t;
}

/**
 * Probes `vmidFor(uid, attempt)`: a free VMID is cloned onto, a taken one goes through `inspect`
 * (unless its listed name is someone else's: skipped without waiting on its lock).
 */
async function allocate(
  ctx: Context,
  req: CreateRequest,
  p: ResolvedPlacement,
  resources: ClusterResource[],
  templateNode: string,
  nic: PlannedNic | undefined,
): Promise<{ vm: Found; adopted: boolean }> {
  const byId = new Map(resources.map((r) => [r.vmid, r]));
  for (let attempt = 0; attempt < VMID_PROBES; attempt++) {
    ctx.signal.throwIfAborted();
    const vmid = vmidFor(req.uid, attempt, ctx.cfg.vmidRange);
    const taken = byId.get(vmid);
    if (taken) {
      if (taken.name && taken.name !== req.name) continue;
      const mine = await inspect(ctx, req, taken.node, vmid);
      if (mine) return { vm: mine, adopted: true };
      continue;
    }
    try {
      await clone(ctx, req, p, templateNode, vmid, nic);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      // Taken since our one resources read: on this node (sync 500) or elsewhere (task error).
      const now = (await ctx.api.clusterResources(ctx.signal)).find((r) => r.vmid === vmid);
      if (!now) {
        // Taken but not listed: the listing leaves out VMs the token cannot audit, so this may
        // be ours (made before the token lost VM.Audit on it). Read it directly: 403 stops the
        // create (Permanent, naming the privilege) instead of probing on to a second clone.
        const direct = await readUnlisted(
          ctx,
          vmid,
          [p.node, ...ctx.cfg.nodes.filter((n) => n !== p.node)],
          `VMID ${vmid}, which exists and may hold ${req.name},`,
        );
        if (!direct) continue;
        const mine = await inspect(ctx, req, direct.node, vmid);
        if (mine) return { vm: mine, adopted: true };
        continue;
      }
      if (now.name && now.name !== req.name) continue;
      const mine = await inspect(ctx, req, now.node, vmid);
      if (mine) return { vm: mine, adopted: true };
      continue;
    }
    return { vm: { node: p.node, vmid, cfg: {} }, adopted: false };
  }
  throw transientError(
    `no free VMID for ${req.name} after ${VMID_PROBES} probes in ${ctx.cfg.vmidRange.min}-${ctx.cfg.vmidRange.max}`,
    {
      code: ErrorCode.Busy,
    },
  );
}

async function clone(
  ctx: Context,
  req: CreateRequest,
  p: ResolvedPlacement,
  templateNode: string,
  vmid: number,
  nic: PlannedNic | undefined,
): Promise<void> {
  const description = formatDescription({
    uid: req.uid,
    createdAt: new Date(ctx.now()),
    installation: req.installation,
    egress: nic?.egress,
    mac: nic?.mac,
  });
  // Bounded per node running the clone task: parallel clones there serialise on the storage lock.
  await ctx.clones.run(
    templateNode,
    async () => {
      const upid = await ctx.api.cloneVm(ctx.signal, templateNode, p.template, {
        newid: vmid,
        name: req.name,
        description,
        ...(templateNode !== p.node ? { target: p.node } : {}),
      });
      if (nic) nic.cloneSubmitted = true;
      await waitTask(ctx, upid, ctx.budgets.cloneMs);
    },
    ctx.signal,
  );
}

/**
 * An adopted VM that runs is done after one status read; anything else is provisioned: the seed
 * (always rebuilt), the config, a resize when the disk is smaller, the start, and running.
 */
async function ensureRunning(
  ctx: Context,
  req: CreateRequest,
  p: ResolvedPlacement,
  vm: Found,
  adopted: boolean,
  nic: PlannedNic | undefined,
  templateCfg?: VmConfig,
): Promise<string> {
  const id = formatProviderId(vm.vmid, req.name);
  if (adopted) {
    const st = await ctx.api.vmStatus(ctx.signal, vm.node, vm.vmid);
    if (st.status === 'running') {
      ctx.logger.log(1, 'proxmox vm ensured running', {
        vmid: vm.vmid,
        name: req.name,
        node: vm.node,
        adopted: true,
      });
      return id;
    }
  }
  const cfg = adopted ? vm.cfg : await waitUnlocked(ctx, vm.node, vm.vmid);
  const storage = ctx.cfg.isoStorage;
  const file = seedFileName(req.name);
  const iso = await ctx.buildSeed({
    name: req.name,
    uid: req.uid,
    cloudInit: req.cloudInit,
    installGuestAgent: ctx.cfg.installGuestAgent,
    networkConfig: nic?.networkConfig,
  });
  await waitTask(ctx, await ctx.api.uploadIso(ctx.signal, vm.node, storage, file, iso));

  const params: Record<string, string | number> = {
    cores: p.machineType.cores,
    memory: p.machineType.memoryMiB,
    agent: '1',
    tags: PROXMOX_TAG,
    ide2: `${storage}:iso/${file},media=cdrom`,
  };
  const net0 =
    typeof cfg.net0 === 'string'
      ? cfg.net0
      : typeof templateCfg?.net0 === 'string'
        ? templateCfg.net0
        : undefined;
  if (net0 && (ctx.cfg.bridge || ctx.cfg.vlanTag !== undefined || nic)) {
    const onBridge = rewriteNet0(net0, ctx.cfg.bridge, ctx.cfg.vlanTag);
    // The seed's network config matches the NIC by this MAC.
    params.net0 = nic ? pinMac(onBridge, nic.mac) : onBridge;
  }
  ctx.logger.log(2, 'proxmox vm config', {
    vmid: vm.vmid,
    node: vm.node,
    cores: params.cores,
    memory: params.memory,
    net0: params.net0,
  });
  await ctx.api.setVmConfig(ctx.signal, vm.node, vm.vmid, params);

  const want = p.machineType.diskGiB;
  if (want !== undefined) {
    const disk = bootDisk(cfg);
    const have = disk ? diskSizeGiB(cfg[disk]) : undefined;
    if (disk && have !== undefined && have < want) {
      await waitTask(ctx, await ctx.api.resizeDisk(ctx.signal, vm.node, vm.vmid, disk, `${want}G`));
    }
  }
  const st = await ctx.api.vmStatus(ctx.signal, vm.node, vm.vmid);
  if (st.status !== 'running') {
    try {
      await waitTask(ctx, await ctx.api.startVm(ctx.signal, vm.node, vm.vmid));
    } catch (err) {
      // Started since our status read (another operator replica, a human): the goal is met (§6).
      if (!isAlreadyRunning(err)) throw err;
    }
  }
  await waitRunning(ctx, vm.node, vm.vmid);
  ctx.logger.log(1, 'proxmox vm ensured running', { vmid: vm.vmid, name: req.name, node: vm.node, adopted });
  return id;
}
