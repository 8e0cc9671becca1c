import { type CreateRequest, ErrorCode, permanentError } from '@egress-proxies/contract';
import type { KvmConfig, KvmHost, KvmMachineType } from './config.js';
import { type ResolvedImage, urlImageKey } from './names.js';

export interface ResolvedPlacement {
  host: KvmHost;
  machineType: KvmMachineType & { key: string };
  image: ResolvedImage;
}

const invalid = (message: string) => permanentError(message, { code: ErrorCode.InvalidPlacement });

/**
 * Placement against the catalogues, before anything is dialled: `zone` is a host name (optional
 * with one host), `machineType` a catalogue key, `image` a catalogue key or an http(s) URL.
 */
export function resolvePlacement(config: KvmConfig, req: CreateRequest): ResolvedPlacement {
  const p = req.placement ?? {};
  const hostNames = config.hosts.map((h) => h.name);
  let host: KvmHost | undefined;
  if (p.zone === undefined || p.zone === '') {
    if (config.hosts.length !== 1)
      throw invalid(
        `placement.zone is required with ${config.hosts.length} hosts (one of ${hostNames.join(', ')})`,
      );
    host = config.hosts[0];
  } else {
    host = config.hosts.find((h) => h.name === p.zone);
    if (!host)
      throw invalid(
        `placement.zone ${JSON.stringify(p.zone)} is not a configured host (one of ${hostNames.join(', ')})`,
      );
  }
  const mtKeys = Object.keys(config.machineTypes);
  const mt = p.machineType !== undefined ? config.machineTypes[p.machineType] : undefined;
  if (!mt || !Object.hasOwn(config.machineTypes, p.machineType as string))
    throw invalid(
      `placement.machineType ${JSON.stringify(p.machineType)} is not in machineTypes (one of ${mtKeys.join(', ')})`,
    );
  const imgKeys = Object.keys(config.images);
  let image: ResolvedImage | undefined;
  if (p.image !== undefined && Object.hasOwn(config.images, p.image)) {
    image = { key: p.image, ...config.images[p.image]! };
  } else if (p.image !== undefined && /^https?:\/\/[^\s]+$/.test(p.image)) {
    image = { key: urlImageKey(p.image), url: p.image, format: 'qcow2', firmware: 'uefi' };
  }
  if (!image)
    throw invalid(
      `placement.image ${JSON.stringify(p.image)} is neither a key of images (${imgKeys.join(', ') || 'none'}) nor an http(s) URL`,
    );
  return { host: host!, machineType: { key: p.machineType as string, ...mt }, image };
}
