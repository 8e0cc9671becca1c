// The providers-file loader, a subpath of its own: only the operator (and tools that read a
// providers file) import it, so YAML is never loaded with a provider package.
export { loadProvidersConfigFile, readProvidersConfigFile } from './providers-config-file.js';
export {
  type LoadProvidersConfigOptions,
  loadProvidersConfig,
  PROVIDER_NAME_RE,
  parseProvidersDocument,
  providerTypesIn,
  validateProviderBlock,
} from './providers-file.js';
