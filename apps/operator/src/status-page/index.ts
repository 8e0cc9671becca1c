export type * from './page-data.js';
export { STATUS_PAGE_HTML } from './page-html.js';
export {
  type RunningStatusPage,
  type StatusPageOptions,
  startStatusPage,
} from './status-page-server.js';
export { applyPatch, type StatusPagePatch, type StatusPagePoolPatch, UpdateStream } from './update-stream.js';
