export {
  GCP_DEFAULTS,
  type GcpConfig,
  type GcpConfigInput,
  gcpConfigSchema,
  type ResolvedGcpConfig,
} from './config.js';
export { GcpErrorCode } from './errors.js';
export { gcpProviderFactory } from './factory.js';
export { gcpProfile } from './profile.js';
export { createGcpProvider, type GcpProvider, type GcpProviderOptions } from './provider.js';
