import type { startEchoServer } from '../standalone/echo-server.js';
import type { RunningStandalone } from '../standalone/standalone.js';
import type { ProxyRecord } from '../standalone/state-file.js';
import type { Io } from './command.js';
import type { LiveDisplay } from './live-display.js';
import type { StandaloneFlags } from './standalone-flags.js';
import type { StatusView } from './status-view.js';

export type EchoServer = Awaited<ReturnType<typeof startEchoServer>>;

/** One `up` run: what its steps share. */
export interface UpSession {
  flags: StandaloneFlags;
  io: Io;
  stateDir: string;
  sa: RunningStandalone;
  view: StatusView;
  echo: EchoServer | undefined;
  display: LiveDisplay;
  /** How this program is run, for the commands it prints. */
  self: string;
  downHint: string;
  /** Whether pool member changes are already reported. */
  watching: boolean;
}

/** A Proxy still wanted: one being deleted is neither waited for nor counted. */
export const notDeleting = (r: ProxyRecord) => r.deletionTimestamp === undefined;
/** Every wanted Proxy Ready with an endpoint (and at least one): what `up` waits for. */
export const allReady = (records: ProxyRecord[]) =>
  records.filter(notDeleting).length > 0 &&
  records.filter(notDeleting).every((r) => r.status?.phase === 'Ready' && r.endpoint !== undefined);
