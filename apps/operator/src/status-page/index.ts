export type * from './page-data.js';
export { STATUS_PAGE_HTML } from './page-html.js';
export {
  type RunningStatusPage,
  type StatusPageOptions,
  serializeUpdate,
  startStatusPage,
} from './status-page-server.js';
