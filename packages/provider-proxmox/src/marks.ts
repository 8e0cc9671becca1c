import {
  CREATED_AT_LABEL,
  INSTALLATION_LABEL,
  MANAGED_LABEL,
  MANAGED_VALUE,
  UID_LABEL,
} from '@egress-proxies/contract';

/** Proxmox marks a VM with this tag, and with `key=value` lines in its description. */
export const PROXMOX_TAG = 'proxy_operator';
/** The description keys: the contract's mark names, as the Go operator wrote them. */
export const PROXMOX_DESCRIPTION_KEYS = {
  managed: MANAGED_LABEL,
  uid: UID_LABEL,
  createdAt: CREATED_AT_LABEL,
  installation: INSTALLATION_LABEL,
  egressIPv4: 'proxy-operator-egress-ipv4',
  egressIPv6: 'proxy-operator-egress-ipv6',
  mac: 'proxy-operator-mac',
} as const;

/** The egress addresses a planned VM holds, as its mark records them. */
export interface MarkEgress {
  ipv4?: string;
  ipv6?: string;
}

export interface Mark {
  managed: boolean;
  uid: string;
  createdAt?: Date;
  installation?: string;
  /** The addresses allocated from an egress plan; the mark is their only record. */
  egress?: MarkEgress;
  /** The NIC's MAC, pinned when the VM has planned addresses (the seed's network config matches on it). */
  mac?: string;
}

/**
 * The description written at clone time: `key=value` lines the Go operator also reads (it
 * ignores the egress lines). The egress lines are written in the same clone call that creates
 * the VM, so an allocation exists on the backend exactly when its VM does.
 */
export function formatDescription(m: {
  uid: string;
  createdAt: Date;
  installation?: string | undefined;
  egress?: MarkEgress | undefined;
  mac?: string | undefined;
}): string {
  const lines = [
    `${MANAGED_LABEL}=${MANAGED_VALUE}`,
    `${UID_LABEL}=${m.uid}`,
    `${CREATED_AT_LABEL}=${m.createdAt.toISOString()}`,
  ];
  if (m.installation) lines.push(`${INSTALLATION_LABEL}=${m.installation}`);
  const k = PROXMOX_DESCRIPTION_KEYS;
  if (m.egress?.ipv4) lines.push(`${k.egressIPv4}=${m.egress.ipv4}`);
  if (m.egress?.ipv6) lines.push(`${k.egressIPv6}=${m.egress.ipv6}`);
  if (m.mac) lines.push(`${k.mac}=${m.mac}`);
  return lines.join('\n');
}

/** Reads the mark from a description; unknown lines are ignored, a bad date gives no createdAt. */
export function parseDescription(description: string | undefined): Mark {
  const kv = new Map<string, string>();
  for (const raw of (description ?? '').split('\n')) {
    const line = raw.trim();
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    kv.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  const created = kv.get(CREATED_AT_LABEL);
  const d = created ? new Date(created) : undefined;
  const mark: Mark = { managed: kv.get(MANAGED_LABEL) === MANAGED_VALUE, uid: kv.get(UID_LABEL) ?? '' };
  if (d && !Number.isNaN(d.getTime())) mark.createdAt = d;
  const inst = kv.get(INSTALLATION_LABEL);
  if (inst) mark.installation = inst;
  const ipv4 = kv.get(PROXMOX_DESCRIPTION_KEYS.egressIPv4);
  const ipv6 = kv.get(PROXMOX_DESCRIPTION_KEYS.egressIPv6);
  if (ipv4 || ipv6) mark.egress = { ...(ipv4 ? { ipv4 } : {}), ...(ipv6 ? { ipv6 } : {}) };
  const mac = kv.get(PROXMOX_DESCRIPTION_KEYS.mac);
  if (mac) mark.mac = mac.toLowerCase();
  return mark;
}

/** PVE stores tags lower-cased and `;`-joined (reference §13); any separator is accepted on read. */
export function hasTag(tags: string | undefined, tag = PROXMOX_TAG): boolean {
  return (tags ?? '').split(/[;,\s]+/).some((t) => t.toLowerCase() === tag);
}
