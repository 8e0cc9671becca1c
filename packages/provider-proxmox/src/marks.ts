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
} as const;

export interface Mark {
  managed: boolean;
  uid: string;
  createdAt?: Date;
  installation?: string;
}

/** The description written at clone time: `key=value` lines the Go operator also reads. */
export function formatDescription(m: { uid: string; createdAt: Date; installation?: string }): string {
  const lines = [
    `${MANAGED_LABEL}=${MANAGED_VALUE}`,
    `${UID_LABEL}=${m.uid}`,
    `${CREATED_AT_LABEL}=${m.createdAt.toISOString()}`,
  ];
  if (m.installation) lines.push(`${INSTALLATION_LABEL}=${m.installation}`);
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
  return mark;
}

/** PVE stores tags lower-cased and `;`-joined (reference §13); any separator is accepted on read. */
export function hasTag(tags: string | undefined, tag = PROXMOX_TAG): boolean {
  return (tags ?? '').split(/[;,\s]+/).some((t) => t.toLowerCase() === tag);
}
