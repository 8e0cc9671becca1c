import { type CreateRequest, ErrorCode, permanentError } from '@egress-proxies/contract';
import { throwIfAborted } from '@egress-proxies/provider-utils';
import { ErrorNumber } from 'libvirt-rpc-ts/codes';
import type { KvmBackend, StoragePool, StorageVol } from './backend.js';
import type { Context, Core, Op } from './core.js';
import { ensureRunning, guardAdoption, lookupDomain, readMark } from './domain-ops.js';
import { domainXml } from './domain-xml.js';
import { withPlannedNic } from './egress.js';
import { hasCode } from './errors.js';
import { formatProviderId } from './id.js';
import { deleteVolumeIfPresent, ensureImage } from './image.js';
import { metadataElement } from './metadata.js';
import { overlayName, seedName } from './names.js';
import { type ResolvedPlacement, resolvePlacement } from './placement.js';
import { overlayVolumeXml, parseVolumeXml, rawVolumeXml } from './volume-xml.js';

const GiB = 1024 ** 3;
const NAME_RE = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Everything create checks before it dials: placement, the name and the UID. */
export function validateCreate(core: Core, req: CreateRequest): ResolvedPlacement {
  if (typeof req?.name !== 'string' || !NAME_RE.test(req.name)) {
    throw permanentError(`request name ${JSON.stringify(req?.name)} is not a valid domain name`, {
      code: ErrorCode.InvalidRequest,
    });
  }
  if (typeof req.uid !== 'string' || req.uid === '') {
    throw permanentError('request uid must be a non-empty string', { code: ErrorCode.InvalidRequest });
  }
  return resolvePlacement(core.config, req);
}

/**
 * The overlay: reused when its backing file and capacity match, replaced when they do not (an
 * image or disk size changed under a leftover), created otherwise.
 */
async function ensureOverlay(
  core: Core,
  b: KvmBackend,
  pool: StoragePool,
  name: string,
  basePath: string,
  baseFormat: 'qcow2' | 'raw',
  op: Op,
  retry = true,
): Promise<StorageVol> {
  const volName = overlayName(name);
  const want = core.config.diskSizeGb * GiB;
  const xml = overlayVolumeXml(volName, core.config.diskSizeGb, basePath, baseFormat);
  let existing: StorageVol | undefined;
  try {
    existing = await b.storageVolLookupByName(pool, volName, op.call);
  } catch (err) {
    if (!hasCode(err, ErrorNumber.VIR_ERR_NO_STORAGE_VOL)) throw err;
  }
  if (existing) {
    const have = parseVolumeXml(await b.storageVolGetXMLDesc(existing, op.call));
    if (have.backingPath === basePath && have.capacity === want) return existing;
    op.log.log(1, 'replacing a leftover overlay that does not match', {
      volume: volName,
      backing: have.backingPath ?? '(none)',
      capacity: have.capacity ?? -1,
      wantBacking: basePath,
      wantCapacity: want,
    });
    await b.storageVolDelete(existing, op.call);
  }
  op.log.log(2, 'overlay volume', { volume: volName, xml });
  try {
    return await b.storageVolCreateXML(pool, xml, op.call);
  } catch (err) {
    // Made meanwhile by a step an earlier, abandoned call left running: check it like a leftover.
    if (!hasCode(err, ErrorNumber.VIR_ERR_STORAGE_VOL_EXIST) || !retry) throw err;
    return ensureOverlay(core, b, pool, name, basePath, baseFormat, op, false);
  }
}

/** The seed ISO is always rebuilt: a cut-off earlier upload must never be trusted. */
async function writeSeed(
  core: Core,
  b: KvmBackend,
  pool: StoragePool,
  req: CreateRequest,
  networkConfig: string | undefined,
  op: Op,
): Promise<StorageVol> {
  // The ISO writer loads with the first seed, not with the package.
  const { buildSeedIso, composeVendorData, guestAgentScript, instanceIdFor, metaData } = await import(
    '@egress-proxies/nocloud'
  );
  let iso: Uint8Array;
  try {
    const vendor = core.config.installGuestAgent
      ? composeVendorData(guestAgentScript(), core.config.vendorData ?? null)
      : (core.config.vendorData ?? null);
    iso = buildSeedIso({
      userData: req.cloudInit ?? '#cloud-config\n',
      metaData: metaData({ instanceId: instanceIdFor(req.name, req.uid), hostname: req.name }),
      vendorData: vendor,
      networkConfig: networkConfig ?? null,
    });
  } catch (err) {
    // The seed builder's messages may quote input; only its class and field are kept.
    const field = (err as { field?: string }).field ?? 'seed';
    throw permanentError(`the cloud-init seed cannot be built (${field} rejected)`, {
      code: ErrorCode.InvalidRequest,
    });
  }
  const name = seedName(req.name);
  await deleteVolumeIfPresent(b, pool, name, op);
  const vol = await b.storageVolCreateXML(pool, rawVolumeXml(name, iso.length), op.call);
  await b.storageVolUpload(
    vol,
    process.getBuiltinModule('node:stream').Readable.from([Buffer.from(iso)]),
    iso.length,
    op.call,
  );
  return vol;
}

/**
 * Validates the request, then creates under the per-name lock. The lock is held until the last
 * backend step really ended, even when the caller stopped waiting: a retry must not race a step
 * still running on the host.
 */
export async function createInstance(ctx: Context, req: CreateRequest): Promise<string> {
  const placement = validateCreate(ctx, req);
  return ctx.nameLock.withLock(
    `${placement.host.name}/${req.name}`,
    () => createUnderLock(ctx, req, placement, ctx).finally(() => ctx.drain()),
    ctx.signal ? { signal: ctx.signal } : {},
  );
}

/** Create, resumable after every step; runs under the per-name lock. */
async function createUnderLock(core: Core, req: CreateRequest, placement: ResolvedPlacement, op: Op) {
  const { host, machineType, image } = placement;
  const id = formatProviderId(host.name, req.name);
  op.log.log(2, 'create parameters', {
    host: host.name,
    machineType: machineType.key,
    vcpus: machineType.vcpus,
    memoryMiB: machineType.memoryMiB,
    image: image.key,
    firmware: image.firmware,
    domainType: core.config.domainType,
    diskSizeGb: core.config.diskSizeGb,
    cloudInitBytes: req.cloudInit?.length ?? 0,
  });
  const b = await core.hosts.get(host, op.call);
  const existing = await lookupDomain(b, req.name, op);
  if (existing) {
    guardAdoption(req.name, await readMark(core, b, existing, op), req.uid);
    await ensureRunning(core, b, existing, op);
    op.log.log(1, `${core.flavour.type} domain ensured running`, { adopted: true });
    return id;
  }
  const pool = await b.storagePoolLookupByName(host.pool, op.call);
  const base = await ensureImage(core, host, b, pool, image, op);
  throwIfAborted(op.signal);
  const basePath = await b.storageVolGetPath(base, op.call);
  const overlay = await ensureOverlay(core, b, pool, req.name, basePath, image.format, op);
  const overlayPath = await b.storageVolGetPath(overlay, op.call);
  // With an egress plan, the seed's network config and the mark's addresses come from one
  // allocation, made and defined under the plan's lock.
  const dom = await withPlannedNic(core, host, b, req.name, op, async (nic) => {
    const seed = await writeSeed(core, b, pool, req, nic?.networkConfig, op);
    const seedPath = await b.storageVolGetPath(seed, op.call);
    const xml = domainXml({
      name: req.name,
      domainType: core.config.domainType,
      vcpus: machineType.vcpus,
      memoryMiB: machineType.memoryMiB,
      firmware: image.firmware,
      overlayPath,
      seedPath,
      bridge: host.bridge,
      ...(nic ? { mac: nic.mac } : {}),
      metadata: metadataElement(core.flavour, {
        managed: true,
        uid: req.uid,
        createdAt: core.now(),
        ...(req.installation ? { installation: req.installation } : {}),
        ...(nic ? { egress: nic.egress, mac: nic.mac } : {}),
      }),
    });
    op.log.log(2, 'domain xml', { xml });
    throwIfAborted(op.signal);
    const defined = await b.domainDefineXML(xml, op.call);
    op.log.log(1, `${core.flavour.type} domain defined`);
    return defined;
  });
  await ensureRunning(core, b, dom, op);
  op.log.log(1, `${core.flavour.type} domain ensured running`, { adopted: false });
  return id;
}
