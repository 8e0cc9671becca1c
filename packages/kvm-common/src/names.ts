import type { KvmImage } from './config.js';

/** The per-instance volumes: the overlay disk and the seed ISO. */
export function overlayName(instance: string): string {
  return `${instance}.qcow2`;
}
export function seedName(instance: string): string {
  return `${instance}-seed.iso`;
}

const SECONDARY = /^(proxy-[a-z0-9-]+?)(\.qcow2|-seed\.iso)$/;

/** Which instance a per-instance volume belongs to, and what it is; undefined for anything else. */
export function secondaryOf(volume: string): { instance: string; kind: 'overlay' | 'seed' } | undefined {
  const m = SECONDARY.exec(volume);
  if (!m) return undefined;
  return { instance: m[1]!, kind: m[2] === '.qcow2' ? 'overlay' : 'seed' };
}

/** A resolved image: a catalogue entry, or an http(s) URL given directly as `placement.image`. */
export interface ResolvedImage extends KvmImage {
  /** The catalogue key, or `url-<hash>` for a URL. */
  key: string;
}

/** `base-<key>.qcow2` (or `.raw`). */
export function baseVolumeName(image: ResolvedImage): string {
  return `base-${image.key}.${image.format}`;
}

/** The marker written last, holding the digest of the cached base. */
export function markerVolumeName(image: ResolvedImage): string {
  return `${baseVolumeName(image)}.sha256`;
}

/** The key used for an image given as a URL: a short hash of the URL. */
export function urlImageKey(url: string): string {
  // node:crypto is fetched on use: importing the package loads no crypto.
  const { createHash } = process.getBuiltinModule('node:crypto');
  return `url-${createHash('sha256').update(url).digest('hex').slice(0, 16)}`;
}
