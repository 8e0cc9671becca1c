import type { ProxyObject } from '../api/proxy.js';
import { POOL_LABEL, TEMPLATE_HASH_LABEL } from '../api/proxy-pool.js';
import type { PoolDocument } from '../pool/pool-documents.js';
import type { MemberRecord } from './member-file.js';
import type { ProxyDocument } from './proxy-documents.js';

/**
 * A pool member's Proxy document: the pool's template with the member's provider and zone,
 * labelled with its pool and template hash, so the same reconciler as for any Proxy creates it.
 */
export function memberDocument(d: PoolDocument, m: MemberRecord): ProxyDocument {
  const t = d.spec.template;
  const placement = { ...t.placement, ...(m.zone ? { zone: m.zone } : {}) };
  const proxy: ProxyObject = {
    apiVersion: 'egress-proxies.dev/v1alpha1',
    kind: 'Proxy',
    metadata: {
      name: m.name,
      namespace: d.namespace,
      labels: { [POOL_LABEL]: d.name, [TEMPLATE_HASH_LABEL]: m.templateHash },
    },
    spec: {
      ...t,
      ...(m.provider ? { provider: m.provider } : {}),
      ...(Object.keys(placement).length ? { placement } : {}),
    },
  };
  // The file a member "comes from" is its pool's, so an unreadable pool file keeps it.
  return { file: d.file, index: d.index, proxy };
}
