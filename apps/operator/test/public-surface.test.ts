import { describe, expect, it } from 'vitest';
import * as operator from '../src/index.js';

// The package's runtime names, on purpose: adding one is a public change (and a changeset), and
// what the benchmarks and the README use must stay. Internals (the queue, the reconciler's
// pieces, the kube stores, the probes, the logger) are not here and may move.
const SURFACE = [
  // run modes and what they return
  'startOperator',
  'clusterInstallationId',
  'startStandalone',
  'down',
  'readState',
  'FileProxyStore',
  'bundledRegistry',
  // the engine pieces an embedder or a benchmark drives
  'ProxyController',
  'OrphanGc',
  'MemoryProxyStore',
  'proxyKey',
  'splitKey',
  'silentOpLogger',
  // the gateway
  'startGateway',
  'GatewayConfigError',
  'GatewayMetrics',
  'MemberTable',
  'SessionTable',
  'sessionHash',
  'ProxyUsers',
  'loadProxyUsers',
  'BAN_REPORT_HEADER',
  'MEMBER_HEADER',
  'MOVED_HEADER',
  'SESSION_HEADER',
  'ROTATES',
  'SELECTIONS',
  // the status page: its server and data source (the page benchmark drives them), and the patch
  // a client of /api/events applies
  'startStatusPage',
  'StandaloneStatusPage',
  'STATUS_PAGE_HTML',
  'UpdateStream',
  'applyPatch',
  // the CRDs: names, schemas, validation
  'API_VERSION',
  'GROUP',
  'VERSION',
  'PROXY',
  'PROXY_POOL',
  'PROVIDER_HEALTH',
  'FINALIZER',
  'FORCE_DELETE_ANNOTATION',
  'RECYCLE_ANNOTATION',
  'POOL_LABEL',
  'TEMPLATE_HASH_LABEL',
  'ON_BAN',
  'ON_DUPLICATE_EGRESS',
  'POOL_ROTATES',
  'POOL_SELECTIONS',
  'AUTOSCALERS',
  'autoscaleSchema',
  'poolSelector',
  'PROXY_MODES',
  'PROXY_PHASES',
  'DURATION_RE',
  'parseDuration',
  'crdFiles',
  'proxyCrd',
  'proxyPoolCrd',
  'providerHealthCrd',
  'conditionSchema',
  'proxySpecSchema',
  'proxyStatusSchema',
  'proxyPoolSpecSchema',
  'proxyPoolStatusSchema',
  'proxyPoolGatewaySchema',
  'providerHealthSpecSchema',
  'providerHealthStatusSchema',
  'ProxySpecError',
  'validateProxySpec',
  'validateProxyPoolSpec',
];

describe('the public surface', () => {
  it('is exactly the listed runtime names', () => {
    expect(Object.keys(operator).sort()).toEqual([...SURFACE].sort());
  });
});
