export type { LocalBackend } from './backend.js';
export { LocalCheckReason } from './check.js';
export { LOCAL_DEFAULTS, type LocalConfig, type LocalConfigInput, localConfigSchema } from './config.js';
export { LocalErrorCode } from './errors.js';
export { localProviderFactory } from './factory.js';
export type { LocalInstance } from './instance.js';
export { localProfile } from './profile.js';
export { createLocalProvider, type LocalProvider, type LocalProviderOptions } from './provider.js';
