// Everything beside the public surface: the building blocks the package's own tests, the
// conformance harness and a curious reader use. Not covered by semver: names here may move.
export { type AuthOptions, COMPUTE_SCOPE, createAuth, noAuth, type RequestAuth } from '../auth.js';
export type * from '../backend.js';
export { check, QUOTA_METRICS } from '../check.js';
export { GCP_MAX_USER_LABELS, parseGcpConfig, subnetworkFor } from '../config.js';
export { CredentialsError } from '../credentials-error.js';
export { ComputeApiError, classify, classifyOperation, parseErrorBody } from '../errors.js';
export { buildFirewallRule, firewallMismatch, firewallRuleName } from '../firewall.js';
export { formatId, type InstanceRef, parseId } from '../id.js';
export { buildInstanceBody, USER_DATA_KEY } from '../instance-body.js';
export { derivedRequestId, labelValue } from '../labels.js';
export { observeComputeApi } from '../observe.js';
export { createRestComputeApi, DEFAULT_ENDPOINT, type RestComputeOptions } from '../rest-client.js';
export { mapState } from '../state.js';
