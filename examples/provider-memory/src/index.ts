export { MEMORY_DEFAULTS, type MemoryConfig, type MemoryConfigInput, memoryConfigSchema } from './config.js';
export { memoryProviderFactory } from './factory.js';
export {
  createMemoryProvider,
  MEMORY_TYPE,
  type MemoryProvider,
  type MemoryProviderOptions,
} from './provider.js';
