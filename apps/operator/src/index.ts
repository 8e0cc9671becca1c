export * from './api/index.js';
export { ConfigWatcher, type ConfigWatcherOptions } from './config/config-watcher.js';
export { type OpLogger, silentOpLogger } from './controller/op-logger.js';
export { Periodic } from './controller/periodic.js';
export { errorClass, instrumentedCall } from './controller/provider-call.js';
export {
  type ProviderLookup,
  ProxyController,
  type ProxyControllerOptions,
} from './controller/proxy-controller.js';
export * from './gateway/index.js';
export { type GcReport, OrphanGc, type OrphanGcOptions } from './gc/orphan-gc.js';
export { HealthChecker, type HealthCheckerOptions } from './health/health-checker.js';
export { LeaseElector, type LeaseElectorOptions } from './leader/lease-elector.js';
export { createOperatorLogger, providerLoggerFrom } from './log/logger.js';
export { OperatorMetrics } from './metrics/metrics.js';
export {
  clusterInstallationId,
  type OperatorOptions,
  type RunningOperator,
  startOperator,
} from './operator.js';
export { createHttpProbe, egressFrom, type HttpProbeOptions } from './probe/http-probe.js';
export { bundledRegistry } from './providers/bundled.js';
export { entryFingerprint } from './providers/fingerprint.js';
export { type ProviderDiff, ProviderSet, type ProviderSlot } from './providers/provider-set.js';
export * from './queue/index.js';
export * from './reconcile/index.js';
export { startHttpServer } from './server/http-server.js';
export { type DownOptions, type DownReport, down } from './standalone/down.js';
export { startEchoServer } from './standalone/echo-server.js';
export {
  FileProxyStore,
  type FileProxyStoreOptions,
  type StoredEvent,
} from './standalone/file-proxy-store.js';
export {
  type DocumentIssue,
  formatIssue,
  type LoadedDocuments,
  loadProxyDocuments,
  type ProxyDocument,
} from './standalone/proxy-documents.js';
export { type RunningStandalone, type StandaloneOptions, startStandalone } from './standalone/standalone.js';
export {
  ensureInstallation,
  type ProxyRecord,
  readState,
  type StandaloneState,
} from './standalone/state-file.js';
export { KubeHealthStore } from './store/kube-health-store.js';
export { KubeProxyStore, type KubeProxyStoreOptions } from './store/kube-proxy-store.js';
export { MemoryProxyStore, type RecordedEvent } from './store/memory-proxy-store.js';
export * from './store/proxy-store.js';
export { startTracing, type TracingOptions } from './tracing/sdk.js';
