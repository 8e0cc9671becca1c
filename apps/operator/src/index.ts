export * from './api/index.js';
export { KubeHealthStore } from './cluster/kube-health-store.js';
export { KubeProxyStore, type KubeProxyStoreOptions } from './cluster/kube-proxy-store.js';
export { LeaseElector, type LeaseElectorOptions } from './cluster/lease-elector.js';
export {
  clusterInstallationId,
  type OperatorOptions,
  type RunningOperator,
  startOperator,
} from './cluster/operator.js';
export { createOperatorLogger, providerLoggerFrom } from './domain/logger.js';
export { type OpLogger, silentOpLogger } from './domain/op-logger.js';
export { Periodic } from './engine/controller/periodic.js';
export { errorClass, instrumentedCall } from './engine/controller/provider-call.js';
export {
  type ProviderLookup,
  ProxyController,
  type ProxyControllerOptions,
} from './engine/controller/proxy-controller.js';
export { type GcReport, OrphanGc, type OrphanGcOptions } from './engine/gc/orphan-gc.js';
export { HealthChecker, type HealthCheckerOptions } from './engine/health/health-checker.js';
export * from './engine/queue/index.js';
export * from './engine/reconcile/index.js';
export { MemoryProxyStore, type RecordedEvent } from './engine/store/memory-proxy-store.js';
export * from './engine/store/proxy-store.js';
export * from './gateway/index.js';
export { createHttpProbe, egressFrom, type HttpProbeOptions } from './probe/http-probe.js';
export { bundledRegistry } from './providers/bundled.js';
export { ConfigWatcher, type ConfigWatcherOptions } from './providers/config-watcher.js';
export { entryFingerprint } from './providers/fingerprint.js';
export { type ProviderDiff, ProviderSet, type ProviderSlot } from './providers/provider-set.js';
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
export { startHttpServer } from './telemetry/http-server.js';
export { OperatorMetrics } from './telemetry/metrics.js';
export { startTracing, type TracingOptions } from './telemetry/tracing.js';
