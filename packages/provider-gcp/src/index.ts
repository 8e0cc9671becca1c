export { type AuthOptions, COMPUTE_SCOPE, createAuth, noAuth, type RequestAuth } from './auth.js';
export type * from './backend.js';
export { check, QUOTA_METRICS } from './check.js';
export {
  GCP_DEFAULTS,
  GCP_MAX_USER_LABELS,
  type GcpConfig,
  type GcpConfigInput,
  gcpConfigSchema,
  parseGcpConfig,
  type ResolvedGcpConfig,
  subnetworkFor,
} from './config.js';
export { CredentialsError } from './credentials-error.js';
export { ComputeApiError, classify, classifyOperation, parseErrorBody } from './errors.js';
export { gcpProviderFactory } from './factory.js';
export { buildFirewallRule, firewallMismatch, firewallRuleName } from './firewall.js';
export { formatId, type InstanceRef, parseId } from './id.js';
export { buildInstanceBody, USER_DATA_KEY } from './instance-body.js';
export { derivedRequestId, labelValue } from './labels.js';
export { observeComputeApi } from './observe.js';
export { gcpProfile } from './profile.js';
export { createGcpProvider, type GcpProvider, type GcpProviderOptions } from './provider.js';
export { createRestComputeApi, DEFAULT_ENDPOINT, type RestComputeOptions } from './rest-client.js';
export { mapState } from './state.js';
