import { escapeXml, parseAttributes, unescapeXml } from './xml-text.js';

/** A plain volume of `bytes` (base images, markers, seed ISOs), filled by an upload. */
export function rawVolumeXml(name: string, bytes: number): string {
  return `<volume><name>${escapeXml(name)}</name><capacity unit="bytes">${bytes}</capacity><target><format type="raw"/></target></volume>`;
}

/** The per-instance overlay: qcow2 of `diskSizeGb`, backed by the base image's file. */
export function overlayVolumeXml(
  name: string,
  diskSizeGb: number,
  backingPath: string,
  backingFormat: 'qcow2' | 'raw',
): string {
  return `<volume><name>${escapeXml(name)}</name><capacity unit="GiB">${diskSizeGb}</capacity><target><format type="qcow2"/></target><backingStore><path>${escapeXml(backingPath)}</path><format type="${backingFormat}"/></backingStore></volume>`;
}

const UNITS: Record<string, number> = {
  b: 1,
  bytes: 1,
  k: 1024,
  kib: 1024,
  kb: 1000,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  mb: 1000 ** 2,
  g: 1024 ** 3,
  gib: 1024 ** 3,
  gb: 1000 ** 3,
  t: 1024 ** 4,
  tib: 1024 ** 4,
  tb: 1000 ** 4,
};

/** What the reused-overlay check reads from `StorageVolGetXMLDesc`. */
export function parseVolumeXml(xml: string): { capacity?: number; backingPath?: string } {
  const cap = /<capacity\b([^>]*)>\s*(\d+)\s*<\/capacity>/.exec(xml);
  let capacity: number | undefined;
  if (cap) {
    const unit = (parseAttributes(cap[1] ?? '')?.get('unit') ?? 'bytes').toLowerCase();
    capacity = Number(cap[2]) * (UNITS[unit] ?? 1);
  }
  const backing = /<backingStore\b[^>]*>[\s\S]*?<path>([^<]*)<\/path>/.exec(xml);
  return {
    ...(capacity !== undefined ? { capacity } : {}),
    ...(backing ? { backingPath: unescapeXml(backing[1]!.trim()) } : {}),
  };
}
