import type { Checker, Placement, Provider, ProviderProfile } from '@egress-proxies/contract';
import type { EgressPlanConfig } from '@egress-proxies/provider-utils';
import type { Awaitable, BackendControl, StateRow } from './control.js';

/** The placement fields a provider validates against its catalogues. */
export type PlacementField = 'zone' | 'machineType' | 'image';

/** What the kit needs to know about one configured provider besides its profile. */
export interface ConformanceConfig {
  /** The configured provider name; every error and log line must carry it. */
  providerName: string;
  /** A placement the provider accepts. */
  placement: Placement;
  /** The placement fields `create` checks before any backend call; an unknown value must be Permanent. */
  validatedPlacement: readonly PlacementField[];
  /** The placement fields `create` cannot do without (no default); a request lacking one must be Permanent. */
  requiredPlacement?: readonly PlacementField[];
  /** The configured zones or hosts, in config order; two or more let the list-partial case run. */
  zones?: readonly string[];
  /** IDs the provider must reject as Permanent; `['', 'not-an-id', 'a/b/c/d/e/f']` when absent. */
  malformedIds?: readonly string[];
  /** A well-formed ID for `name` on a zone or host that is not configured; absent when IDs carry none. */
  unconfiguredZoneId?(name: string): string;
  /** Credential values planted in the provider's config (tokens, keys): never in a log line or an error. */
  secrets: readonly string[];
  /** Every backend state the provider maps, with the state `get` must report for it. */
  stateTable: readonly StateRow[];
  /** The Checker's targets in config order. */
  checkTargets?: readonly string[];
  /** Why the provider delivers no cloud-init to its backend (a local process, a Pod): the byte-for-byte case does not apply. */
  cloudInitNotDelivered?: string;
  /** Conditions `BackendControl.breakTarget` understands, with the reason the Checker must report. */
  checkReasons?: readonly { condition: string; reason: string }[];
  /**
   * The egress plan the placement's zone allocates from, as written in the provider's config,
   * for a provider whose profile says `egress: planned`: the planned-egress cases run on it. Its
   * smallest family should hold a handful of instances (at most 16) so the cases can exhaust it.
   */
  egress?: { planName: string; plan: EgressPlanConfig };
}

/** One fresh, isolated provider over its own fake backend. */
export interface ConformanceFixture {
  provider: Provider;
  checker?: Checker;
  backend: BackendControl;
  /** The declared profile; usually `provider.profile`. */
  profile: ProviderProfile;
  config: ConformanceConfig;
  /**
   * A second provider with the same config over the same backend, sharing no memory with
   * `provider`: what a restarted process makes. The case closes it. Needed by the cases that
   * read state back from the backend after a restart.
   */
  freshProvider?(): Awaitable<Provider>;
  /** Called after the case's cleanup: close connections, stop servers. */
  dispose?(): Awaitable<void>;
}

export interface SetupInfo {
  /** The case the fixture is for; `collect` when the kit only reads the declarations. */
  caseId: string;
}

/**
 * Returns a fresh, isolated fixture every time it is called: once per case, and once when the
 * suite is collected (to read the profile and the config that decide which cases apply).
 */
export type ConformanceHarness = (info: SetupInfo) => Awaitable<ConformanceFixture>;
