export { crdFiles, providerHealthCrd, proxyCrd, proxyPoolCrd } from './crd.js';
export { DURATION_RE, parseDuration } from './duration.js';
export * from './group.js';
export * from './provider-health.js';
export * from './proxy.js';
export * from './proxy-pool.js';
export { ProxySpecError, validateProxySpec } from './validate.js';
