import type { ErrorKind, InstanceState } from '@egress-proxies/contract';

/** A value or a promise of it: harnesses over real or networked fakes may need to await. */
export type Awaitable<T> = T | Promise<T>;

/**
 * The error classes a fake backend can be told to fail with. Each harness maps them onto its
 * backend's native errors (an errno, an HTTP status, a libvirt error code), so the provider's own
 * classifier is what the kit exercises.
 */
export type FaultKind =
  /** The backend cannot be reached (connection refused, DNS, TLS handshake cut). */
  | 'unreachable'
  /** The backend is there but refuses for now (lock held, 429/503, too many connections). */
  | 'busy'
  /** The backend's own "does not exist" answer for whatever the step touches. */
  | 'not-found'
  /** Any other backend failure (a 500, an internal error). */
  | 'internal'
  /** Out of capacity (no space in the pool, quota, no free addresses). */
  | 'out-of-capacity';

/**
 * Fault kinds a harness may also support, declared in `BackendControl.faultKinds`; `failNext`
 * then gets them too (declare its parameter as `InjectableFault`).
 */
export type OptionalFaultKind =
  /** The backend rejects the credentials (401, permission denied, bad key). */
  | 'auth-rejected'
  /** The credentials cannot be read right now (a mounted file missing or unreadable). */
  | 'credentials-unreadable'
  /** The backend call ran out of its time budget. */
  | 'timeout';

/** Every fault kind the kit knows. */
export type InjectableFault = FaultKind | OptionalFaultKind;

export const FAULT_KINDS: readonly FaultKind[] = [
  'unreachable',
  'busy',
  'not-found',
  'internal',
  'out-of-capacity',
];

/** The kinds beyond `FAULT_KINDS` a harness may declare in `BackendControl.faultKinds`. */
export const OPTIONAL_FAULT_KINDS: readonly OptionalFaultKind[] = [
  'auth-rejected',
  'credentials-unreadable',
  'timeout',
];

/** A provider-specific fault kind and what the provider must turn it into. */
export interface ExtraFault {
  fault: string;
  kind: ErrorKind;
  code?: string;
}

/**
 * How a started machine misbehaves, for `BackendControl.failStart`: it crashes, it powers off
 * (a guest that halts at once), or it never gets past starting however long the provider waits.
 */
export type StartFault = 'crashes' | 'powers-off' | 'never-runs';

export const START_FAULTS: readonly StartFault[] = ['crashes', 'powers-off', 'never-runs'];

/** Marks `BackendControl.seed` can write besides a plain one, declared in `markVariants`. */
export type MarkVariant =
  /** `mark.managed: false`: the full mark, with the managed flag saying "not managed". */
  | 'managed-false'
  /** `mark.createdAt` an invalid Date: the creation time written as text that is no time. */
  | 'unparsable-created-at'
  /** `mark.written: 'other-tool'`: the same shape under another tool's name or namespace, which is no mark of ours. */
  | 'other-tool'
  /** `mark.written: 'reformatted'`: our mark as another writer lays it out (whitespace around and between its parts). */
  | 'reformatted';

/** A hold on one backend step, from `BackendControl.block`. */
export interface StepGate {
  /** Resolves once a call of the step is held at the gate. */
  readonly reached: Promise<void>;
  /** How many calls are held right now. */
  readonly held: number;
  /** Lets every held call, and every later one, through. */
  release(): void;
}

/** An instance to put on the backend behind the provider's back. */
export interface SeedSpec {
  /** The instance name (the kit always uses a name `instanceName` can produce). */
  name: string;
  /** The zone or host; the harness's default placement zone when absent. */
  zone?: string;
  /**
   * `none` for an unmarked instance; otherwise the mark to write. `uid: ''` writes a mark with an
   * empty UID. `createdAt` is ignored where the backend stamps creation itself (`createdAt:
   * backend-timestamp`), and the cases then only require some createdAt back. `managed: false`
   * writes the whole mark with the managed flag off; only harnesses declaring the
   * `managed-false` mark variant get it. `written` lays the mark out as the `other-tool` or
   * `reformatted` variant; only harnesses declaring that variant get it.
   */
  mark:
    | 'none'
    | {
        uid: string;
        createdAt?: Date;
        installation?: string;
        managed?: false;
        written?: 'other-tool' | 'reformatted';
      };
  /** A backend-native state (one of `ConformanceConfig.stateTable`'s); running when absent. */
  state?: string;
  /** Whether the backend reports an address for it; true when absent. */
  address?: boolean;
}

/** What the backend holds for one instance, as the harness sees it (not through the provider). */
export interface BackendInstanceView {
  name: string;
  zone?: string;
  /** The provider ID this instance has (what `create` would return for it). */
  id: string;
  /** The backend-native state. */
  state: string;
  /** Whether the backend would call it running (the state a blocking create waits for). */
  running: boolean;
  marked: boolean;
  uid?: string;
}

/** A secondary resource (volume, seed ISO, disk) that belongs to one instance name. */
export interface BackendResourceView {
  kind: string;
  name: string;
  /** The instance name it belongs to. */
  instance: string;
  zone?: string;
}

/** One backend call as the backend saw it, in order. */
export interface BackendCall {
  step: string;
  instance?: string;
  zone?: string;
}

/**
 * The small control interface a harness implements over its fake backend, so the kit can inject
 * faults, seed foreign instances, look at what exists and act behind the provider's back.
 * Optional members gate the cases that need them; a case that cannot run says which member it
 * missed.
 */
export interface BackendControl {
  // ---- faults
  /** Fails the next `count` calls of `step` (on any zone) with `fault`. */
  failNext(step: string, count: number, fault: FaultKind): Awaitable<void>;
  /** Holds every call of `step` until the gate is released (or the call's signal aborts). */
  block(step: string): StepGate;
  /** Makes one zone (or, without `zone`, the whole backend) unreachable or reachable again. */
  setUnreachable(on: boolean, zone?: string): Awaitable<void>;
  /**
   * Every fault kind `failNext` can inject, beyond the first five (`FAULT_KINDS`), which every
   * harness supports: `auth-rejected`, `credentials-unreadable`, `timeout`. The classification
   * sweep (OPS-08) injects each declared kind at every step of every operation.
   */
  readonly faultKinds?: readonly OptionalFaultKind[];
  /**
   * The provider's own fault kinds with the error kind (and code, when fixed) each must give;
   * `failNext` gets the `fault` string.
   */
  readonly extraFaults?: readonly ExtraFault[];
  /**
   * The backend's own code for `fault` injected at `step` (an errno name, an HTTP status, a
   * libvirt error code), as the provider receives it: 2.9 puts it on the failed call's line.
   */
  backendCode?(step: string, fault: InjectableFault): string | number;
  /** Makes one zone (or the whole backend) answer busy to every call. */
  setBusy(on: boolean, zone?: string): Awaitable<void>;
  /** Leaves no capacity for another instance; needed where the profile's `quota` is `detected`. */
  exhaustCapacity?(zone?: string): Awaitable<void>;
  /** Breaks a Checker target so it reports the condition's reason (see `ConformanceConfig.checkReasons`). */
  breakTarget?(target: string, condition: string): Awaitable<void>;
  /** The start faults `failStart` can produce; CREATE-19 runs each. */
  readonly startFaults?: readonly StartFault[];
  /**
   * Until `reset()`, every start of the instance `name` ends in `fault`: the backend reports it
   * crashed or powered off right after the start, or still starting on every read.
   */
  failStart?(name: string, fault: StartFault, zone?: string): Awaitable<void>;

  // ---- seeding
  /** Puts an instance on the backend and returns its provider ID. */
  seed(spec: SeedSpec): Awaitable<string>;
  /** Makes an instance's mark unreadable (garbled metadata, unparsable labels). */
  corrupt?(name: string, zone?: string): Awaitable<void>;
  /** The mark variants `seed` writes faithfully (GET-14 needs `managed-false`, GET-15 `unparsable-created-at`). */
  readonly markVariants?: readonly MarkVariant[];

  // ---- inspection
  /**
   * The cloud-init the backend received for `name` (the seed image's user-data, the metadata
   * item, the Pod's file), exactly as stored; undefined when nothing was delivered.
   */
  deliveredCloudInit?(name: string, zone?: string): Awaitable<string | undefined>;
  /**
   * What the backend holds for `name`'s network: the network-config it received (cloud-init's
   * NoCloud file of that name, exactly as stored; undefined when none was delivered) and the MAC
   * address of each NIC it defined for the instance. The planned-egress cases read it.
   */
  deliveredNetwork?(name: string, zone?: string): Awaitable<{ networkConfig?: string; macs: string[] }>;
  instances(): Awaitable<BackendInstanceView[]>;
  resources(): Awaitable<BackendResourceView[]>;
  /** Every backend call since the fixture was made (or since `clearCalls`), in order. */
  calls(): Awaitable<BackendCall[]>;
  clearCalls(): Awaitable<void>;
  /** Backend calls in flight now, of one step or of all. */
  inFlight(step?: string): number;

  // ---- out of band
  removeInstance(name: string, zone?: string): Awaitable<void>;
  stopInstance(name: string, zone?: string): Awaitable<void>;
  /** Removes an instance's secondary resources (not the instance). */
  removeResources(name: string, zone?: string): Awaitable<void>;
  /** Gives an instance an address, or takes it away. */
  setAddress(name: string, present: boolean, zone?: string): Awaitable<void>;

  /** Step names that play a role some cases need; cases that need an absent one are skipped. */
  readonly steps: {
    /** The call that reads an instance's address (a failure there is Provisioning, not an error). */
    address?: string;
    /** The call that stops a running instance. */
    stop?: string;
    /** The call that removes the instance itself. */
    remove?: string;
    /** The call that reads one instance's state (listByTag must never make it per instance). */
    state?: string;
    /** The call each Checker target makes first (blocked to show the targets run concurrently). */
    probe?: string;
    /**
     * The call that makes the instance itself, after every part it needs (its egress allocation
     * among them): a create held there and cut off is a crash between allocation and instance.
     */
    define?: string;
  };

  /**
   * Lets everything through again: clears pending faults, releases every gate, makes every zone
   * reachable and not busy, restores capacity and broken targets, and lets every machine start
   * normally again. The kit calls it before cleanup.
   */
  reset(): Awaitable<void>;
}

/** One row of the provider's state table: a backend-native state, with or without an address. */
export interface StateRow {
  state: string;
  address: boolean;
  expected: InstanceState;
}
