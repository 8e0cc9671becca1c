/** One interface as the guest agent reports it (reference §8). */
export interface FakeAgentInterface {
  name: string;
  'hardware-address'?: string;
  'ip-addresses'?: { 'ip-address': string; 'ip-address-type': 'ipv4' | 'ipv6'; prefix: number }[];
}

/** The guest agent inside a running VM: `down` answers `QEMU guest agent is not running`. */
export type FakeAgent = 'down' | FakeAgentInterface[];

export interface FakeVm {
  vmid: number;
  node: string;
  config: Record<string, string | number>;
  running: boolean;
  /** QMP status while running: running, paused, prelaunch, suspended, io-error... */
  qmp: string;
  agent: FakeAgent;
  /** Whether pvestatd has reported it (name/template/status in /cluster/resources, reference §2). */
  rrd: boolean;
  /** When `rrd` turns true by itself (a clone's first pvestatd report). */
  rrdAt?: number;
}

export interface FakeStorage {
  id: string;
  type: string;
  content: string[];
  shared: boolean;
  enabled: boolean;
  active: boolean;
  total: number;
  avail: number;
}

export interface FakeVolume {
  size: number;
  ctime: number;
  data?: Uint8Array;
}

export interface FakeTask {
  upid: string;
  node: string;
  type: string;
  id: string;
  user: string;
  tokenid?: string;
  pid: number;
  pstart: number;
  starttime: number;
  endAt: number;
  held: boolean;
  status: 'running' | 'stopped';
  exitstatus?: string;
  /** When it ended (epoch seconds), once stopped. */
  endtime?: number;
  /** Runs when the task ends; returns the error text, or undefined for OK. */
  finish: () => string | undefined;
}

/** An injected answer for requests matching `method` and `path`. */
export interface FakeFault {
  method?: string;
  /** Matched against the path after `/api2/json`. */
  path: RegExp | string;
  status: number;
  /** The error text (reason phrase = its first line; the body carries it in the current format). */
  text?: string;
  /** Raw body instead of the formatted one (595/596 carry none). */
  body?: string;
  /** How many requests it answers; default unlimited. */
  times?: number;
  /** Delay before answering. */
  delayMs?: number;
  /** Never answer (until the client gives up). */
  hang?: boolean;
}

export interface FakeCall {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  at: number;
  /** The seam method it belongs to (see `stepOf`). */
  step: string;
  /** The token id that authenticated it (never the secret). */
  tokenId?: string;
}
