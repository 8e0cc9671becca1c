import { describeValue, SeedInputError } from './errors.js';

// Proxy names are DNS labels or subdomains (lowercase letters, digits, '-' and '.').
const NAME = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;

/**
 * The cloud-init instance id for a proxy: `<name>-<16 hex digits>`, the digits being the
 * first 64 bits of SHA-256 over the UTF-8 name, a NUL byte and the UTF-8 UID. cloud-init
 * runs its once-per-instance modules again whenever the id changes, so a replacement object
 * (same name, new UID) boots as a fresh instance while a reboot of the same one does not.
 * The name stays readable in the id for whoever inspects the guest.
 */
export function instanceIdFor(name: string, uid: string): string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new SeedInputError(
      'name',
      typeof name === 'string'
        ? `name must be a DNS name (lowercase letters, digits, '-' and '.', at most 253 characters), got ${JSON.stringify(name.slice(0, 64))}`
        : `name must be a string, got ${describeValue(name)}`,
    );
  }
  if (typeof uid !== 'string' || uid.length === 0) {
    throw new SeedInputError(
      'uid',
      `uid must be a non-empty string, got ${typeof uid === 'string' ? 'an empty string' : describeValue(uid)}`,
    );
  }
  // node:crypto is fetched on use: importing the package loads no crypto.
  const digest = process
    .getBuiltinModule('node:crypto')
    .createHash('sha256')
    .update(name, 'utf8')
    .update(Uint8Array.of(0))
    .update(uid, 'utf8')
    .digest('hex');
  return `${name}-${digest.slice(0, 16)}`;
}
