import { checkDocumentKeys } from '../api/document-keys.js';
import { API_VERSION } from '../api/group.js';
import { PROXY_POOL, type ProxyPoolSpec, proxyPoolSpecSchema } from '../api/proxy-pool.js';
import { validate } from '../api/schema.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A valid ProxyPool document from a file `up` reads. */
export interface PoolDocument {
  file: string;
  index: number;
  namespace: string;
  name: string;
  annotations: Record<string, string>;
  spec: ProxyPoolSpec;
}

export const isPoolDocument = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === PROXY_POOL.kind;

/**
 * Checks a ProxyPool document (the CRD's shape): the pool, or the issues naming each bad field.
 * Member names are `<pool>-<5 characters>`, so a pool name leaves room for them in a DNS label.
 */
export function toPoolDocument(
  file: string,
  index: number,
  value: Record<string, unknown>,
  issue: (path: string, message: string) => void,
): PoolDocument | undefined {
  let ok = checkDocumentKeys(value, issue);
  if (value.apiVersion !== API_VERSION) {
    issue('apiVersion', `must be ${API_VERSION}, got ${JSON.stringify(value.apiVersion)}`);
    ok = false;
  }
  const meta = (value.metadata ?? {}) as Record<string, unknown>;
  const name = meta.name;
  if (typeof name !== 'string' || !DNS1123_LABEL.test(name) || name.length > 57) {
    issue('metadata.name', `must be a DNS-1123 label of at most 57 characters, got ${JSON.stringify(name)}`);
    ok = false;
  }
  const namespace = meta.namespace ?? 'default';
  if (typeof namespace !== 'string' || !DNS1123_LABEL.test(namespace)) {
    issue('metadata.namespace', `must be a DNS-1123 label, got ${JSON.stringify(namespace)}`);
    ok = false;
  }
  const r = validate(proxyPoolSpecSchema, value.spec, 'spec');
  if (!r.ok) for (const i of r.issues) issue(i.path, i.message);
  if (!ok || !r.ok) return undefined;
  const annotations = (meta.annotations ?? {}) as Record<string, string>;
  return { file, index, namespace: namespace as string, name: name as string, annotations, spec: r.value };
}
