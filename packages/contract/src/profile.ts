import type { InstanceState } from './instance-state.js';

/**
 * How a provider meets the contract, one answer per axis. The conformance kit reads it to decide
 * which tests apply (and prints why it skips the rest); docs/contract.md explains every axis.
 */
export interface ProviderProfile {
  /** How long from create to a usable address. */
  readiness: 'immediate' | 'provisioning-window';
  /** Whether `create` returns once submitted or once the machine runs. */
  createReturn: 'submit' | 'blocking';
  /** Whether `delete` returns once submitted or once everything is gone. */
  deleteReturn: 'returns-early' | 'waits';
  /** Whether the address is known at create or discovered later (agent, ARP, leases). */
  ipSource: 'assigned-at-create' | 'discovered';
  /** How ownership is marked on the backend. */
  gcMark: 'native-labels' | 'written-metadata' | 'state-files';
  /** Where `createdAt` comes from. */
  createdAt: 'backend-timestamp' | 'written-at-create';
  /** What `listByTag` does when part of the backend cannot be read. */
  listPartial: 'not-applicable' | 'omit-unreachable' | 'fail-whole';
  /** Whether one unreadable entry is skipped (true) or fails the list. */
  listSkipsUnreadable: boolean;
  /** Whether out-of-capacity is reported as QuotaExceeded. */
  quota: 'absent' | 'detected';
  /** How the backend says "not found". */
  notFound: 'status-404' | 'error-code' | 'list-and-miss';
  /** Whether the name is the backend key or the backend allocates an ID. */
  primaryKey: 'name-is-key' | 'allocated-id';
  /** Whether the backend has a provisioning state of its own or create blocks through it. */
  provisioningState: 'native' | 'create-blocks';
  /** Asynchronous backend operations the provider handles. */
  asyncOps: 'none' | 'task-handle' | 'task-handle-and-lock';
  /** What besides the machine a create leaves, and how it is removed and found. */
  secondaryResources: 'none' | 'cascade' | 'explicit' | 'explicit-listable';
  /** Where credentials come from. */
  credentials: 'none' | 'workload-identity' | 'environment' | 'mounted-files';
  /** How the backend is spoken to. */
  clientKind: 'vendor-sdk' | 'rpc-over-ssh' | 'thin-client' | 'local-process' | 'in-memory';
  /** Whether calls have their own time budgets or rely on the caller's signal only. */
  timeouts: 'ctx-only' | 'per-call';
  /** Whether the provider logs (outcomes at V1, detail at V2). */
  logging: 'none' | 'tiered';
  /** Child spans under the caller's span. */
  childSpans: 'none' | 'transport-wrapper' | 'sdk-instrumentation' | 'span-decorator';
  /** How the provider is tested against its backend. */
  backendTest: 'real-backend-in-ci' | 'wire-level-fake' | 'in-memory-fake' | 'manual-runbook';
  /** The states `get` can produce. */
  states: readonly InstanceState[];
  /**
   * Where each instance's egress address comes from: `shared` (every instance leaves through the
   * host's own route, so instances are not distinct to the far end), `per-instance-cloud` (the
   * backend gives each machine its own external address), `planned` (the provider allocates from
   * a configured egress plan and records it in the mark), `host-addresses` (the provider binds
   * each instance to an address of the host, or rotates within a routed prefix). Optional so that
   * providers written before it still load; absent reads as `shared`.
   */
  egress?: 'shared' | 'per-instance-cloud' | 'planned' | 'host-addresses';
  /** Free-form notes per axis, shown in the conformance report and the README. */
  notes?: Partial<Record<Exclude<keyof ProviderProfile, 'notes' | 'states'>, string>>;
}

/** The axes in docs/contract.md order. */
export const PROFILE_AXES = [
  'readiness',
  'createReturn',
  'deleteReturn',
  'ipSource',
  'gcMark',
  'createdAt',
  'listPartial',
  'listSkipsUnreadable',
  'quota',
  'notFound',
  'primaryKey',
  'provisioningState',
  'asyncOps',
  'secondaryResources',
  'credentials',
  'clientKind',
  'timeouts',
  'logging',
  'childSpans',
  'backendTest',
  'egress',
  'states',
] as const satisfies readonly (keyof ProviderProfile)[];

type ChoiceAxis = Exclude<(typeof PROFILE_AXES)[number], 'states' | 'listSkipsUnreadable'>;

/** The allowed answers of every axis with a fixed set of answers, in docs/contract.md order. */
export const PROFILE_ANSWERS: { readonly [K in ChoiceAxis]: readonly ProviderProfile[K][] } = {
  readiness: ['immediate', 'provisioning-window'],
  createReturn: ['submit', 'blocking'],
  deleteReturn: ['returns-early', 'waits'],
  ipSource: ['assigned-at-create', 'discovered'],
  gcMark: ['native-labels', 'written-metadata', 'state-files'],
  createdAt: ['backend-timestamp', 'written-at-create'],
  listPartial: ['not-applicable', 'omit-unreachable', 'fail-whole'],
  quota: ['absent', 'detected'],
  notFound: ['status-404', 'error-code', 'list-and-miss'],
  primaryKey: ['name-is-key', 'allocated-id'],
  provisioningState: ['native', 'create-blocks'],
  asyncOps: ['none', 'task-handle', 'task-handle-and-lock'],
  secondaryResources: ['none', 'cascade', 'explicit', 'explicit-listable'],
  credentials: ['none', 'workload-identity', 'environment', 'mounted-files'],
  clientKind: ['vendor-sdk', 'rpc-over-ssh', 'thin-client', 'local-process', 'in-memory'],
  timeouts: ['ctx-only', 'per-call'],
  logging: ['none', 'tiered'],
  childSpans: ['none', 'transport-wrapper', 'sdk-instrumentation', 'span-decorator'],
  backendTest: ['real-backend-in-ci', 'wire-level-fake', 'in-memory-fake', 'manual-runbook'],
  egress: ['shared', 'per-instance-cloud', 'planned', 'host-addresses'],
};

/** Axes added after providers were written: absent is a valid answer (each documents its reading). */
const OPTIONAL_AXES: ReadonlySet<string> = new Set(['egress']);

const STATES = ['Provisioning', 'Running', 'Stopped', 'Terminated'];

/**
 * Checks a profile at run time (a provider written in JavaScript, or one built from data):
 * returns one message per missing or unknown answer, empty when the profile is complete.
 */
export function profileProblems(profile: unknown): string[] {
  if (typeof profile !== 'object' || profile === null)
    return [`profile must be an object, got ${String(profile)}`];
  const p = profile as Record<string, unknown>;
  const problems: string[] = [];
  for (const [axis, answers] of Object.entries(PROFILE_ANSWERS) as [string, readonly string[]][]) {
    const v = p[axis];
    if (v === undefined && OPTIONAL_AXES.has(axis)) continue;
    if (v === undefined) problems.push(`${axis}: missing (one of ${answers.join(', ')})`);
    else if (!answers.includes(v as string)) {
      problems.push(`${axis}: ${JSON.stringify(v)} is not one of ${answers.join(', ')}`);
    }
  }
  if (typeof p.listSkipsUnreadable !== 'boolean') {
    problems.push(
      `listSkipsUnreadable: expected true or false, got ${JSON.stringify(p.listSkipsUnreadable)}`,
    );
  }
  const states = p.states;
  if (!Array.isArray(states) || states.length === 0) {
    problems.push(`states: expected a non-empty list of ${STATES.join(', ')}`);
  } else {
    for (const s of states)
      if (!STATES.includes(s)) problems.push(`states: ${JSON.stringify(s)} is not a state`);
  }
  return problems;
}
