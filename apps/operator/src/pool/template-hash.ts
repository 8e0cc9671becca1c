import { createHash } from 'node:crypto';
import { canonical } from '../standalone/file-proxy-store.js';

/** A short digest of the template members are made from: a change rolls the pool. */
export function templateHash(template: unknown): string {
  return createHash('sha256').update(canonical(template)).digest('hex').slice(0, 10);
}
