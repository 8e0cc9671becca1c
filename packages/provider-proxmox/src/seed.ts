import { buildSeedIso, guestAgentScript, instanceIdFor, metaData } from '@egress-proxies/nocloud';

/** The seed ISO's file name for an instance; the GC listing recognises orphans by it. */
export function seedFileName(name: string): string {
  return `${name}-seed.iso`;
}

const SEED_RE = /^(.+)-seed\.iso$/;

/** The instance name a seed volume (`<storage>:iso/<name>-seed.iso` or `iso/...`) belongs to. */
export function seedOwner(volid: string): string | undefined {
  const file = volid.slice(volid.lastIndexOf('/') + 1);
  const m = SEED_RE.exec(file);
  return m?.[1]?.startsWith('proxy-') ? m[1] : undefined;
}

export interface SeedInput {
  name: string;
  uid: string;
  cloudInit?: string;
  installGuestAgent: boolean;
}

/** Rebuilt on every attempt: the cloud-init of the request may have changed since the last one. */
export function buildSeed(i: SeedInput): Uint8Array {
  return buildSeedIso({
    userData: i.cloudInit ?? '',
    metaData: metaData({ instanceId: instanceIdFor(i.name, i.uid), hostname: i.name }),
    vendorData: i.installGuestAgent ? guestAgentScript() : undefined,
  });
}
