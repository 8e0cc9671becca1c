// What embedders import: the two run modes, the gateway, the pieces the benchmarks and tests
// outside this package drive (the controller over a memory store, the orphan GC), the store
// seam and the CRD types. Everything else is internal and may move.

export * from './api/index.js';
export {
  clusterInstallationId,
  type OperatorOptions,
  type RunningOperator,
  startOperator,
} from './cluster/operator.js';
export { type OpLogger, silentOpLogger } from './domain/op-logger.js';
export {
  type ProviderLookup,
  ProxyController,
  type ProxyControllerOptions,
} from './engine/controller/proxy-controller.js';
export { type GcReport, OrphanGc, type OrphanGcOptions } from './engine/gc/orphan-gc.js';
export { MemoryProxyStore, type RecordedEvent } from './engine/store/memory-proxy-store.js';
export * from './engine/store/proxy-store.js';
export * from './gateway/index.js';
export { bundledRegistry } from './providers/bundled.js';
export { type DownOptions, type DownReport, down } from './standalone/down.js';
export { FileProxyStore, type StoredEvent } from './standalone/file-proxy-store.js';
export { type RunningStandalone, type StandaloneOptions, startStandalone } from './standalone/standalone.js';
export { type ProxyRecord, readState, type StandaloneState } from './standalone/state-file.js';
export {
  StandaloneStatusPage,
  type StandaloneStatusPageOptions,
  type StatusPagePools,
  type StatusPageStore,
} from './standalone/status-page-data.js';
export * from './status-page/index.js';
