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
  /** The cloud-init network config (v2) of a planned NIC; absent keeps DHCP. */
  networkConfig?: string | undefined;
}

/**
 * Rebuilt on every attempt: the cloud-init of the request may have changed since the last one.
 * The ISO writer (and node:crypto and node:zlib with it) loads with the first seed, not with the
 * package.
 */
export async function buildSeed(i: SeedInput): Promise<Uint8Array> {
  const { buildSeedIso, guestAgentScript, instanceIdFor, metaData } = await import('@egress-proxies/nocloud');
  return buildSeedIso({
    userData: i.cloudInit ?? '',
    metaData: metaData({ instanceId: instanceIdFor(i.name, i.uid), hostname: i.name }),
    vendorData: i.installGuestAgent ? guestAgentScript() : undefined,
    networkConfig: i.networkConfig,
  });
}
