/** node:crypto, fetched on use: importing the package loads no crypto. */
const crypto = () => process.getBuiltinModule('node:crypto');

/** One usable line of an OpenSSH known_hosts file. */
export interface KnownHostEntry {
  /** `@revoked` or `@cert-authority` when the line carries a marker. */
  marker: '@revoked' | '@cert-authority' | null;
  /** The host field as written (comma-separated patterns, or one `|1|salt|hash`). */
  hosts: string;
  keyType: string;
  /** The decoded public key blob. */
  key: Buffer;
  line: number;
}

/** Parses known_hosts text; malformed lines are skipped, as OpenSSH does. */
export function parseKnownHosts(text: string): KnownHostEntry[] {
  const out: KnownHostEntry[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] ?? '').trim();
    if (raw === '' || raw.startsWith('#')) continue;
    const fields = raw.split(/\s+/);
    let marker: KnownHostEntry['marker'] = null;
    if (fields[0]?.startsWith('@')) {
      const m = fields.shift();
      if (m !== '@revoked' && m !== '@cert-authority') continue;
      marker = m;
    }
    const [hosts, keyType, b64] = fields;
    if (!hosts || !keyType || !b64 || !/^[A-Za-z0-9+/]+=*$/.test(b64)) continue;
    const key = Buffer.from(b64, 'base64');
    // The blob starts with its own type name; a line whose two disagree is corrupt.
    if (key.length < 4 || key.toString('latin1', 4, 4 + key.readUInt32BE(0)) !== keyType) continue;
    out.push({ marker, hosts, keyType, key, line: i + 1 });
  }
  return out;
}

/** The name OpenSSH looks up: `host` on port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 'i');
}

function hashedMatches(field: string, name: string): boolean {
  const parts = field.split('|');
  // "|1|salt|hash" splits into ['', '1', salt, hash]
  if (parts.length !== 4 || parts[1] !== '1') return false;
  const salt = Buffer.from(parts[2] ?? '', 'base64');
  const want = Buffer.from(parts[3] ?? '', 'base64');
  const { createHmac, timingSafeEqual } = crypto();
  const got = createHmac('sha1', salt).update(name).digest();
  return want.length === got.length && timingSafeEqual(want, got);
}

/** Whether an entry's host field names `host:port` (hashed entries, patterns and negations included). */
export function hostFieldMatches(hosts: string, host: string, port: number): boolean {
  const name = knownHostsName(host, port);
  if (hosts.startsWith('|')) return hashedMatches(hosts, name);
  let matched = false;
  for (const pattern of hosts.split(',')) {
    if (pattern === '') continue;
    const negated = pattern.startsWith('!');
    const p = negated ? pattern.slice(1) : pattern;
    if (globToRegExp(p).test(name)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

export type HostKeyVerdict =
  | { result: 'ok' }
  | { result: 'unknown' }
  | { result: 'mismatch' }
  | { result: 'revoked' };

/** Checks a presented host key blob against the entries for `host:port`. */
export function checkHostKey(
  entries: KnownHostEntry[],
  host: string,
  port: number,
  key: Buffer,
): HostKeyVerdict {
  const forHost = entries.filter(
    (e) => e.marker !== '@cert-authority' && hostFieldMatches(e.hosts, host, port),
  );
  const revoked = entries.some((e) => e.marker === '@revoked' && e.key.equals(key));
  if (revoked) return { result: 'revoked' };
  const plain = forHost.filter((e) => e.marker === null);
  if (plain.length === 0) return { result: 'unknown' };
  return plain.some((e) => e.key.equals(key)) ? { result: 'ok' } : { result: 'mismatch' };
}

/** Key types listed for `host:port`, to offer the server only host key algorithms we can check. */
export function knownKeyTypes(entries: KnownHostEntry[], host: string, port: number): string[] {
  const types = new Set<string>();
  for (const e of entries)
    if (e.marker === null && hostFieldMatches(e.hosts, host, port)) types.add(e.keyType);
  return [...types];
}

/** `SHA256:…` fingerprint of a key blob, as OpenSSH prints it (a hash, not key material). */
export function fingerprint(key: Buffer): string {
  return `SHA256:${crypto().createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** Host key algorithm names that negotiate a key of the given type. */
export function algorithmsForKeyType(keyType: string): string[] {
  if (keyType === 'ssh-rsa') return ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];
  return [keyType];
}
