import { permanentError, quotaExceededError, transientError } from '@egress-proxies/contract';
import { withSpan } from '@egress-proxies/provider-utils';
import { ErrorNumber } from 'libvirt-rpc-ts/codes';
import type { KvmBackend, StoragePool, StorageVol } from './backend.js';
import type { KvmHost } from './config.js';
import type { Core, Op } from './core.js';
import { hasCode, KvmErrorCode } from './errors.js';
import type { ImageResponse } from './http-fetcher.js';
import { baseVolumeName, markerVolumeName, type ResolvedImage } from './names.js';
import { rawVolumeXml } from './volume-xml.js';

/** node:crypto and node:stream, fetched on use: importing the package loads neither. */
const crypto = () => process.getBuiltinModule('node:crypto');
const stream = () => process.getBuiltinModule('node:stream');

/** Headroom on top of the image and the overlay: the seed ISO and metadata. */
export const POOL_HEADROOM_BYTES = 16 * 1024 * 1024;
const GiB = 1024 ** 3;
const MARKER_BYTES = 64;

/** Bytes a create needs in the pool: the image if it is not cached, the overlay and headroom. */
export function neededBytes(imageBytes: number, diskSizeGb: number): number {
  return imageBytes + diskSizeGb * GiB + POOL_HEADROOM_BYTES;
}

/** The pool-space precheck: QuotaExceeded naming the pool, what is available and what is needed. */
export async function checkPoolSpace(
  b: KvmBackend,
  pool: StoragePool,
  needed: number,
  op: Op,
): Promise<void> {
  const info = await b.storagePoolGetInfo(pool, op.call);
  if (info.state !== 2 /* RUNNING */) {
    // Fixed on the host (pool-start, autostart), not in the Proxy's spec: Transient, as a missing
    // pool is inside create, so the Proxy keeps retrying instead of latching Failed.
    throw transientError(`storage pool ${pool.name} is not running (state ${info.state})`, {
      code: KvmErrorCode.PoolNotActive,
      details: { pool: pool.name, state: info.state },
    });
  }
  const available = Number(info.available);
  if (available < needed) {
    throw quotaExceededError(`storage pool ${pool.name} has ${available} bytes available, ${needed} needed`, {
      details: { pool: pool.name, available, needed },
    });
  }
}

async function lookupVolume(b: KvmBackend, pool: StoragePool, name: string, op: Op) {
  try {
    return await b.storageVolLookupByName(pool, name, op.call);
  } catch (err) {
    if (hasCode(err, ErrorNumber.VIR_ERR_NO_STORAGE_VOL)) return undefined;
    throw err;
  }
}

/** The pool, or undefined when the host has no pool of that name. */
export async function lookupPoolIfPresent(
  b: KvmBackend,
  name: string,
  op: Op,
): Promise<StoragePool | undefined> {
  try {
    return await b.storagePoolLookupByName(name, op.call);
  } catch (err) {
    if (hasCode(err, ErrorNumber.VIR_ERR_NO_STORAGE_POOL)) return undefined;
    throw err;
  }
}

/** Deletes a volume by name if it is there. */
export async function deleteVolumeIfPresent(b: KvmBackend, pool: StoragePool, name: string, op: Op) {
  const vol = await lookupVolume(b, pool, name, op);
  if (!vol) return false;
  try {
    await b.storageVolDelete(vol, op.call);
  } catch (err) {
    if (!hasCode(err, ErrorNumber.VIR_ERR_NO_STORAGE_VOL)) throw err;
  }
  return true;
}

/**
 * Whether the base image is cached: the marker exists (it is written last), the base exists,
 * and a configured sha256 equals the marker's content.
 */
export async function cachedBase(
  b: KvmBackend,
  pool: StoragePool,
  image: ResolvedImage,
  op: Op,
): Promise<StorageVol | undefined> {
  const marker = await lookupVolume(b, pool, markerVolumeName(image), op);
  if (!marker) return undefined;
  if (image.sha256) {
    const digest = (await b.storageVolDownload(marker, MARKER_BYTES, op.call)).toString('utf8').trim();
    if (digest.toLowerCase() !== image.sha256.toLowerCase()) {
      op.log.log(1, 'cached base image digest differs from the configured sha256; fetching again', {
        volume: baseVolumeName(image),
      });
      return undefined;
    }
  }
  return lookupVolume(b, pool, baseVolumeName(image), op);
}

/** Counts and hashes the bytes on their way to the pool, and logs progress every few seconds. */
function meter(total: number, op: Op, intervalMs: number) {
  const hash = crypto().createHash('sha256');
  let bytes = 0;
  const started = performance.now();
  let lastLog = started;
  const transform = new (stream().Transform)({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      bytes += chunk.length;
      const now = performance.now();
      if (now - lastLog >= intervalMs) {
        lastLog = now;
        const seconds = (now - started) / 1000;
        op.log.log(1, 'image download progress', {
          bytes,
          total,
          percent: Math.floor((bytes / total) * 100),
          rateBytesPerSec: Math.round(bytes / Math.max(seconds, 0.001)),
        });
      }
      cb(null, chunk);
    },
  });
  return { transform, digest: () => hash.digest('hex'), bytes: () => bytes, started };
}

/**
 * Streams an opened download into a new base volume on a dedicated connection (a cancelled call
 * elsewhere can never cut it off, and cancelling this one cuts off only itself), then refreshes
 * the pool and writes the marker last. A failed attempt removes the partial volume.
 */
export async function downloadImage(
  core: Core,
  host: KvmHost,
  b: KvmBackend,
  pool: StoragePool,
  image: ResolvedImage,
  res: ImageResponse,
  op: Op,
): Promise<StorageVol> {
  const p = core.flavour.spanPrefix;
  const baseName = baseVolumeName(image);
  const urlHost = (() => {
    try {
      return new URL(image.url).host;
    } catch {
      return '';
    }
  })();
  return withSpan(
    `${p}.download`,
    {
      [`${p}.url_host`]: urlHost,
      [`${p}.sha256_configured`]: Boolean(image.sha256),
      [`${p}.bytes`]: res.contentLength,
      [`${p}.host`]: host.name,
    },
    async () => {
      op.log.log(1, 'fetching base image into host pool', {
        host: host.name,
        volume: baseName,
        bytes: res.contentLength,
      });
      await deleteVolumeIfPresent(b, pool, markerVolumeName(image), op);
      await deleteVolumeIfPresent(b, pool, baseName, op);
      const vol = await b.storageVolCreateXML(pool, rawVolumeXml(baseName, res.contentLength), op.call);
      const m = meter(res.contentLength, op, core.progressIntervalMs);
      let dedicated: KvmBackend | undefined;
      try {
        dedicated = await core.hosts.fresh(host, op.call);
        res.body.on('error', (err) => m.transform.destroy(err));
        const source = res.body.pipe(m.transform);
        await dedicated.storageVolUpload(vol, source, res.contentLength, op.call);
        if (m.bytes() !== res.contentLength) {
          throw transientError(`image download ended after ${m.bytes()} of ${res.contentLength} bytes`, {
            code: KvmErrorCode.ImageDownloadFailed,
          });
        }
        const digest = m.digest();
        if (image.sha256 && digest !== image.sha256.toLowerCase()) {
          throw permanentError(
            `image ${image.key} has sha256 ${digest}, the config says ${image.sha256.toLowerCase()}`,
            { code: KvmErrorCode.ImageChecksumMismatch },
          );
        }
        await b.storagePoolRefresh(pool, op.call);
        const marker = await b.storageVolCreateXML(
          pool,
          rawVolumeXml(markerVolumeName(image), MARKER_BYTES),
          op.call,
        );
        await b.storageVolUpload(
          marker,
          stream().Readable.from([Buffer.from(digest, 'ascii')]),
          MARKER_BYTES,
          op.call,
        );
        op.log.log(1, 'base image cached', {
          host: host.name,
          volume: baseName,
          bytes: res.contentLength,
          durationMs: Math.round(performance.now() - m.started),
        });
        return vol;
      } catch (err) {
        res.body.destroy();
        // The partial volume goes whatever happened: without the caller's signal (it may have
        // ended), and on a new connection when the failure took the pooled one with it.
        await removePartial(core, host, b, pool, image, op);
        throw err;
      } finally {
        if (dedicated) void dedicated.close().catch(() => {});
      }
    },
    core.tracer ? { tracer: core.tracer } : {},
  );
}

async function removePartial(
  core: Core,
  host: KvmHost,
  b: KvmBackend,
  pool: StoragePool,
  image: ResolvedImage,
  op: Op,
): Promise<void> {
  const quiet: Op = { ...op, call: { logger: op.log } };
  const remove = async (c: KvmBackend) => {
    await deleteVolumeIfPresent(c, pool, markerVolumeName(image), quiet);
    await deleteVolumeIfPresent(c, pool, baseVolumeName(image), quiet);
  };
  try {
    await remove(b);
  } catch {
    const fresh = await core.hosts.fresh(host, quiet.call).catch(() => undefined);
    if (!fresh) return;
    await remove(fresh).catch((err) =>
      op.log.log(1, 'could not remove a partial base image; the next fetch replaces it', {
        error: err instanceof Error ? err.message : String(err),
      }),
    );
    void fresh.close().catch(() => {});
  }
}

/**
 * Makes sure the base image is in the pool (fetching it once per host even under concurrent
 * callers) after checking the pool has room for it, the overlay and headroom. Returns the base.
 */
export async function ensureImage(
  core: Core,
  host: KvmHost,
  b: KvmBackend,
  pool: StoragePool,
  image: ResolvedImage,
  op: Op,
): Promise<StorageVol> {
  return core.imageLock.withLock(
    `${host.name}\u0000${baseVolumeName(image)}`,
    async () => {
      // Sees volumes evicted or written behind libvirt's back. libvirt refuses a refresh while
      // an upload into the pool runs, so a failure here only means "as listed".
      await b.storagePoolRefresh(pool, op.call).catch((err) => {
        if (op.signal?.aborted) throw err;
        op.log.log(1, 'pool refresh before the image check failed; using the listed volumes', {
          pool: pool.name,
          error: err instanceof Error ? err.message : String(err),
        });
      });
      const cached = await cachedBase(b, pool, image, op);
      if (cached) {
        await checkPoolSpace(b, pool, neededBytes(0, core.config.diskSizeGb), op);
        return cached;
      }
      const res = await core.fetcher(image.url, op.signal ? { signal: op.signal } : {});
      try {
        await checkPoolSpace(b, pool, neededBytes(res.contentLength, core.config.diskSizeGb), op);
      } catch (err) {
        res.body.destroy();
        throw err;
      }
      return downloadImage(core, host, b, pool, image, res, op);
    },
    op.signal ? { signal: op.signal } : {},
  );
}
