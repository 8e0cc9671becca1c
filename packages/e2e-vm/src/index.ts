export { E2E_ENV_VAR, type E2eEnv, readE2eEnv } from './e2e-env.js';
export {
  type PhaseEvent,
  type ProxyState,
  parsePhaseLine,
  startUp,
  type UpProcess,
} from './operator-process.js';
export { type SquidCloudInitOptions, squidCloudInit } from './proxy-cloud-init.js';
export { type E2eTimings, type ProxyTimes, renderTimings, replaceMeasured, updateReport } from './report.js';
export { type RunE2eOptions, runE2e } from './run-e2e.js';
export {
  type EchoServer,
  type ImageServer,
  type ServedDownload,
  startEchoServer,
  startImageServer,
} from './test-servers.js';
