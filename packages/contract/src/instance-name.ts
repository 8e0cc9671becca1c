import { INSTANCE_NAME_PREFIX } from './marks.js';

/** Hex digits of the hash kept in the name: 64 bits, collision-free in practice for one backend. */
const HASH_HEX = 16;

/**
 * The deterministic instance name for a proxy: `proxy-` plus 16 hex digits of
 * sha256("<namespace>/<name>"). 22 characters of `[a-z0-9-]`, starting with a letter and ending
 * with a letter or digit, so it is valid as a libvirt domain name, a Proxmox VM name (a DNS
 * label), a GCE instance name (`[a-z]([-a-z0-9]{0,61}[a-z0-9])?`) and a Kubernetes Pod name
 * (a DNS-1123 subdomain, also a valid label value). It is the idempotency key of `create`.
 */
export function instanceName(namespace: string, name: string): string {
  if (typeof namespace !== 'string' || namespace === '') {
    throw new TypeError(
      `instanceName: namespace must be a non-empty string, got ${JSON.stringify(namespace)}`,
    );
  }
  // The hash input joins the two with "/", so a namespace holding "/" could collide with another
  // pair ("a/b" + "c" vs "a" + "b/c"). Kubernetes namespaces never contain one.
  if (namespace.includes('/')) {
    throw new TypeError(`instanceName: namespace must not contain "/", got ${JSON.stringify(namespace)}`);
  }
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`instanceName: name must be a non-empty string, got ${JSON.stringify(name)}`);
  }
  // Fetched on use, not imported: importing the contract loads nothing.
  const { createHash } = process.getBuiltinModule('node:crypto');
  const digest = createHash('sha256').update(`${namespace}/${name}`).digest('hex');
  return `${INSTANCE_NAME_PREFIX}${digest.slice(0, HASH_HEX)}`;
}

const INSTANCE_NAME_RE = new RegExp(`^${INSTANCE_NAME_PREFIX}[0-9a-f]{${HASH_HEX}}$`);

/** True for a name `instanceName` can produce. */
export function isInstanceName(value: string): boolean {
  return INSTANCE_NAME_RE.test(value);
}
