import { createHash } from 'node:crypto';
import { canonicalJson } from '../domain/canonical-json.js';

/** A short digest of the template members are made from: a change rolls the pool. */
export function templateHash(template: unknown): string {
  return createHash('sha256').update(canonicalJson(template)).digest('hex').slice(0, 10);
}
