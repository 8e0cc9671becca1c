import type { ProviderProfile } from '@egress-proxies/contract';
import { GCP_STATES } from './state.js';

/** How this provider meets the contract, axis by axis (the README's profile table says why). */
export const gcpProfile: ProviderProfile = {
  readiness: 'provisioning-window',
  createReturn: 'submit',
  deleteReturn: 'returns-early',
  ipSource: 'assigned-at-create',
  gcMark: 'native-labels',
  createdAt: 'backend-timestamp',
  listPartial: 'omit-unreachable',
  listSkipsUnreadable: true,
  quota: 'detected',
  notFound: 'status-404',
  primaryKey: 'name-is-key',
  provisioningState: 'native',
  asyncOps: 'task-handle',
  secondaryResources: 'cascade',
  credentials: 'environment',
  clientKind: 'thin-client',
  timeouts: 'per-call',
  logging: 'tiered',
  childSpans: 'span-decorator',
  backendTest: 'wire-level-fake',
  states: GCP_STATES,
  notes: {
    ipSource: 'the first NIC: its NAT IP (ipMode external) or its VPC address (ipMode internal)',
    asyncOps:
      'insert is not awaited; its operation is kept so Get reports a failed insert as that failure instead of NotFound',
    listPartial: 'aggregated list with returnPartialSuccess; unreachable zones are logged at V1',
    quota:
      'errors[].reason quotaExceeded/rateLimitExceeded, HTTP 429, and failed operations with quota or capacity codes',
    credentials: 'google-auth-library Application Default Credentials, or a service-account key file',
    timeouts: 'each request has a budget (30 s default) besides the caller signal',
    secondaryResources: 'the boot disk is auto-deleted with the instance',
  },
};
