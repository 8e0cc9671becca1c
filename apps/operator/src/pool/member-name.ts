import { randomBytes } from 'node:crypto';

// The alphabet Kubernetes' generateName uses: no vowels (no words) and no look-alike characters.
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A pool member's name: the pool's name and five random characters, in the cluster and under `up`. */
export function memberName(pool: string): string {
  return `${pool}-${[...randomBytes(5)].map((b) => ALPHABET[b % ALPHABET.length]).join('')}`;
}
