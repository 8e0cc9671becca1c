import {
  createReference,
  REFERENCE_HOSTS,
  ReferenceBackend,
  referenceConfig,
} from '@egress-proxies/conformance/reference';
import { instanceName } from '@egress-proxies/contract';
import { sleep } from '@egress-proxies/provider-utils';
import type { ProxyObject } from '../../src/api/proxy.js';
import { createOperatorLogger, providerLoggerFrom } from '../../src/domain/logger.js';
import { ProxyController } from '../../src/engine/controller/proxy-controller.js';
import { OrphanGc } from '../../src/engine/gc/orphan-gc.js';
import type { ProviderHandle } from '../../src/engine/reconcile/types.js';
import { MemoryProxyStore } from '../../src/engine/store/memory-proxy-store.js';
import { backoffViolations } from '../support/backoff-gaps.js';
import { seededRandom } from '../support/seeded-random.js';
import { within } from '../support/within.js';
import { type FaultCounts, type FaultRates, faultProvider } from './fault-provider.js';

export interface ChaosOptions {
  seed: number;
  proxies: number;
  /** Abrupt controller stops (every call in flight aborted), each followed by a fresh controller. */
  restarts: number;
  /** Proxies deleted along the way. */
  deletes: number;
  rates: FaultRates;
  /** How long the calm phase may take for everything to settle; a bound, never a pass condition. */
  settleLimitMs?: number;
}

export interface ChaosSummary {
  ok: boolean;
  line: string;
  problems: string[];
  faults: FaultCounts;
  /** Gaps between a failed create and the next create of the same Proxy that were checked against the backoff. */
  backoffGaps: number;
}

/** The backoff tiers of the run: small, but well above the time a pass takes in process. */
const TRANSIENT = { baseMs: 10, maxMs: 40 };
const QUOTA = { baseMs: 25, maxMs: 60 };
/**
 * Creates that hang are ended at this deadline; an edit aborts one after the grace. The edit of a
 * hung create must reach the controller before the deadline: on a loaded machine that took over
 * 130 ms, so the deadline leaves a second for it.
 */
const CREATE_DEADLINE_MS = 1_000;
const ABORT_GRACE_MS = 20;

const TOKEN = 'chaos-token-secret';
const SENTINEL = 'CHAOS-CLOUD-INIT-SENTINEL-7f3a';

function proxy(i: number): ProxyObject {
  return {
    apiVersion: 'egress-proxies.dev/v1alpha1',
    kind: 'Proxy',
    metadata: { name: `c${i}`, namespace: 'chaos', uid: `uid-c${i}`, generation: 1, finalizers: [] },
    spec: {
      mode: 'Managed',
      provider: 'ref',
      port: 3128,
      placement: {
        zone: REFERENCE_HOSTS[i % REFERENCE_HOSTS.length]!,
        machineType: 'small',
        image: 'debian-12',
      },
      cloudInit: { inline: `#cloud-config\n# ${SENTINEL}\n` },
    },
  };
}

/**
 * A seeded chaos run of the controller over the reference provider with faults injected at every
 * call: controllers stopped abruptly and replaced, Proxies deleted midway, then a calm phase in
 * which everything that can be Ready must become Ready. The store outlives every controller, as
 * the API server does. Returns the one-line summary and every loss found.
 */
export async function runChaos(o: ChaosOptions): Promise<ChaosSummary> {
  const random = seededRandom(o.seed);
  const backend = new ReferenceBackend({
    hosts: REFERENCE_HOSTS.map((h) => ({ name: h, token: TOKEN, poolGiB: 100_000 })),
  });
  const made = createReference('ref', referenceConfig(TOKEN), backend);
  const base: ProviderHandle = {
    name: 'ref',
    type: made.provider.type,
    provider: made.provider,
    fingerprint: 'fp',
  };
  const faults = faultProvider(base, o.rates, random);
  const store = new MemoryProxyStore();
  const logLines: string[] = [];
  const logger = createOperatorLogger('trace', { write: (s: string) => void logLines.push(s) });
  const controller = () =>
    new ProxyController({
      store,
      providers: { get: (n) => (n === 'ref' ? faults.handle : undefined), names: () => ['ref'] },
      installation: 'chaos',
      probe: async () => ({ ok: true, latencyMs: 1 }),
      workers: 4,
      createConcurrency: 4,
      pollIntervalMs: 5,
      blockedRetryMs: 50,
      latchRetryMs: 50,
      rateLimiter: { jitter: 0, tiers: { transient: TRANSIENT, quota: QUOTA } },
      deadlines: { createMs: CREATE_DEADLINE_MS, callMs: 2_000 },
      abortGraceMs: ABORT_GRACE_MS,
      logger: logger.child({ loop: 'proxy' }),
      providerLogger: providerLoggerFrom(logger),
    });
  for (let i = 0; i < o.proxies; i++) store.put(proxy(i));
  const deleted = new Set<string>();
  const problems: string[] = [];
  // A Proxy edited while its create hangs: the edit must abort that create after the grace (not
  // wait for the deadline, nor forever) and the Proxy must end Ready with the new spec.
  const edited = 'chaos/c0';
  const editedName = instanceName('chaos', 'c0');
  faults.hangNextCreate(editedName);
  let c = controller();
  c.start();
  const hungSeen = await within(5_000, () =>
    faults.calls.some((k) => k.name === editedName && k.outcome === 'hang'),
  );
  if (!hungSeen) problems.push(`the first create of ${edited} never started`);
  const edit = proxy(0);
  store.put({
    ...edit,
    spec: { ...edit.spec, placement: { ...edit.spec.placement!, machineType: 'medium' } },
  });
  const abortedByEdit = await within(5_000, () =>
    (faults.hangEnds.get(editedName) ?? []).some((r) =>
      /spec of the Proxy changed/.test(String((r as Error)?.message)),
    ),
  );
  if (!abortedByEdit)
    problems.push(
      `the hung create of ${edited} was not aborted by its edit (ended by: ${String(faults.hangEnds.get(editedName)?.map((r) => (r as Error)?.message))})`,
    );
  for (let r = 0; r < o.restarts; r++) {
    // Let it make some progress first, so the stop lands mid-create, mid-delete or mid-wait.
    const writes = store.statusWrites + 1 + Math.floor(random() * o.proxies);
    const until = Date.now() + 2_000;
    while (store.statusWrites < writes && Date.now() < until) await sleep(2);
    if (deleted.size < o.deletes && random() < 0.7) {
      const i = Math.floor(random() * o.proxies);
      const key = `chaos/c${i}`;
      if (!deleted.has(key)) {
        deleted.add(key);
        store.delete(key);
      }
    }
    await c.stop(0);
    faults.nextEpoch();
    c = controller();
    c.start();
  }
  // After the last restart, one more Proxy whose creates fail Transient three times, then
  // QuotaExceeded twice: one controller's whole backoff ladder, checked below.
  const laddered = proxy(o.proxies);
  faults.scriptCreates(instanceName('chaos', laddered.metadata.name), [
    'transient',
    'transient',
    'transient',
    'quota',
    'quota',
  ]);
  store.put(laddered);
  const climbed = await within(
    10_000,
    () => store.get(`chaos/${laddered.metadata.name}`)?.status?.phase === 'Ready',
  );
  if (!climbed) problems.push(`${laddered.metadata.name} did not get Ready after its scripted failures`);
  faults.calm();
  const live = () => store.list().filter((p) => !deleted.has(`${p.metadata.namespace}/${p.metadata.name}`));
  const settled = () =>
    live().every((p) => p.status?.phase === 'Ready') && [...deleted].every((k) => !store.get(k));
  const limit = Date.now() + (o.settleLimitMs ?? 120_000);
  while (!settled() && Date.now() < limit) await sleep(10);
  await c.stop(0);

  // What an abrupt stop left without a Proxy, collected as the operator's GC would.
  const gc = new OrphanGc({ liveProxies: () => store.list(), installation: 'chaos', graceMs: 0 });
  const report = await gc.collect(base);
  const names = new Map<string, number>();
  for (const d of backend.domains()) names.set(d.name, (names.get(d.name) ?? 0) + 1);
  const wanted = new Set(live().map((p) => instanceName(p.metadata.namespace, p.metadata.name)));
  const notReady = live().filter((p) => p.status?.phase !== 'Ready');
  for (const p of notReady) problems.push(`${p.metadata.name} is ${p.status?.phase}: ${p.status?.message}`);
  for (const k of deleted) if (store.get(k)) problems.push(`${k} was deleted but its finalizer stayed`);
  const orphans = [...names.keys()].filter((n) => !wanted.has(n));
  const duplicates = [...names.values()].filter((n) => n > 1).length;
  const missing = [...wanted].filter((n) => !names.has(n));
  const leaked = backend
    .volumes()
    .filter((v) => v.kind !== 'base' && v.owner !== undefined && !wanted.has(v.owner)).length;
  const secretLines = logLines.filter((l) => l.includes(SENTINEL) || l.includes(TOKEN)).length;
  const secretEvents = store.events.filter((e) => e.message.includes(SENTINEL)).length;
  if (orphans.length) problems.push(`orphans: ${orphans.join(', ')}`);
  if (duplicates) problems.push(`${duplicates} names held twice`);
  if (missing.length) problems.push(`Ready without an instance: ${missing.join(', ')}`);
  if (leaked) problems.push(`${leaked} leaked volumes`);
  if (secretLines || secretEvents)
    problems.push(`secret in ${secretLines} log lines and ${secretEvents} events`);
  const created = new Set(store.events.filter((e) => e.reason === 'Created').map((e) => e.key));
  for (const p of live()) {
    if (!created.has(`${p.metadata.namespace}/${p.metadata.name}`))
      problems.push(`${p.metadata.name} is Ready with no Created event`);
  }
  const e = store.get(edited)?.status;
  if (e && e.instanceGeneration !== 2)
    problems.push(`${edited} runs an instance of generation ${e.instanceGeneration}, not its edit's (2)`);
  const backoff = backoffViolations(faults.calls, new Set([editedName, ...[...deleted].map(nameOf)]), {
    transientMs: TRANSIENT.baseMs,
    quotaMs: QUOTA.baseMs,
  });
  problems.push(...backoff.violations);
  const f = faults.counts;
  const line = `chaos seed=${o.seed} proxies=${o.proxies} deleted=${deleted.size} ready=${live().length - notReady.length}/${live().length} restarts=${o.restarts} instances=${backend.domains().length} orphans=${orphans.length} duplicates=${duplicates} leaked=${leaked} gc-collected=${report.deleted.length} secret-lines=${secretLines} log-lines=${logLines.length} faults=transient:${f.transient},quota:${f.quota},permanent:${f.permanent},async:${f.asyncFailure},slow:${f.slow},hang:${f.hang} backoff-gaps=${backoff.checked} ${problems.length ? 'FAIL' : 'OK'}`;
  return { ok: problems.length === 0, line, problems, faults: f, backoffGaps: backoff.checked };
}

const nameOf = (key: string) => {
  const [ns, name] = key.split('/') as [string, string];
  return instanceName(ns, name);
};
