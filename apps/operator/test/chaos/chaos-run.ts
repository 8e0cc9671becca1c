import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type KubeControlPlane } from '@egress-proxies/testenv-kube';
import type { ProxyObject } from '../../src/api/proxy.js';
import { startClusterWithCrds } from '../support/cluster.js';
import { createProxy, listEvents, proxiesPath } from '../support/harness.js';
import { seededRandom } from '../support/seeded-random.js';
import { backendName, ChaosBackends, type ChaosProvider, PROVIDERS } from './backends.js';
import { checkInventory, checkMetricsAndEvents, secretLines } from './end-checks.js';
import { type FaultCounts, FaultPlan } from './fault-plan.js';
import { OperatorReplicas } from './operator-replicas.js';

export interface ChaosOptions {
  seed: number;
  proxies: number;
  /** SIGKILLs of an operator process (the leader, mostly), each restarted after a pause. */
  kills: number;
  /** Proxies deleted while the faults land. */
  deletes: number;
  /** How long faults are armed and the kills, deletes, rotation and API server restart land. */
  chaosMs: number;
  /** The calm phase fails when no Proxy has moved for this long (a stall, not a deadline). */
  stallMs: number;
  progress?: (line: string) => void;
}

export interface ChaosSummary {
  ok: boolean;
  line: string;
  problems: string[];
  faults: FaultCounts;
  dir: string;
}

const NS = 'chaos';
const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');
const MODULE = join(__dirname, 'fault-cloud-provider.mjs');
/** The operators' pass deadline, deliberately short: slow creates outlast it. */
const PASS_DEADLINE_MS = 4_000;
const SLOW_CREATE_MS = 7_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function listProxies(cp: KubeControlPlane): Promise<ProxyObject[]> {
  const r = await cp.request('GET', proxiesPath(NS));
  if (r.status !== 200) throw new Error(`list proxies: ${r.status} ${r.body}`);
  return r.json<{ items: ProxyObject[] }>().items;
}

/**
 * The seeded chaos run on the real kube-apiserver: 50 (or a few) Proxies across four providers
 * whose backends outlive the operator (Proxmox and Compute Engine fakes, the local provider's
 * processes, a third-party provider's cloud loaded through `module:`), two `egress-proxies run`
 * replicas sharing a Lease, faults of every class armed on the backends at every step, operator
 * processes killed with SIGKILL at seeded moments, the API server restarted, the credentials
 * rotated and Proxies deleted along the way. Then a calm phase, and the end checks: everything
 * that can be Ready is, each backend holds exactly one instance per live Proxy and nothing else
 * (counted before any GC pass), no secret in any log line, metrics and events agree with the
 * backends, and every fault kind was served.
 */
export async function runChaos(o: ChaosOptions): Promise<ChaosSummary> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build the package first (pnpm build)`);
  const say = o.progress ?? (() => {});
  const random = seededRandom(o.seed);
  const dir = mkdtempSync(join(tmpdir(), 'ep-chaos-'));
  const sentinel = `CHAOS-CLOUD-INIT-SENTINEL-${o.seed}-7f3a`;
  const cleanup: (() => Promise<unknown>)[] = [];
  let ok = false;
  try {
    const cp = await startClusterWithCrds();
    cleanup.push(() => cp.stop());
    await cp.ensureNamespace(NS);
    await cp.ensureNamespace('egress-proxies-system');
    const backends = new ChaosBackends(dir);
    cleanup.push(() => backends.stop());
    await backends.start();
    backends.cloud.slowThresholdMs = PASS_DEADLINE_MS;
    backends.secrets.push(sentinel);

    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, cp.kubeconfig());
    const providersPath = join(dir, 'providers.yaml');
    // Ports of its own for this run's local proxies, away from the other suites' ranges.
    const base = 47_000 + (process.pid % 40) * 100;
    writeFileSync(providersPath, backends.providersConfig(MODULE, { min: base, max: base + 99 }));

    const replicas = new OperatorReplicas({
      main: MAIN,
      env: { ...process.env, GOOGLE_APPLICATION_CREDENTIALS: backends.gceKeyFile },
      logDir: dir,
      args: (port) => [
        ...['--kubeconfig', kubeconfig, '--providers-config', providersPath],
        ...['--installation-id', `chaos-${o.seed}`, '--operator-namespace', 'egress-proxies-system'],
        ...[
          '--lease-name',
          'chaos',
          '--lease-duration',
          '6s',
          '--renew-deadline',
          '4s',
          '--retry-period',
          '1s',
        ],
        ...['--http-bind-address', `127.0.0.1:${port}`, '--log-level', 'debug'],
        ...['--workers', '4', '--create-concurrency', '4', '--gc-interval', '1h', '--gc-grace', '1h'],
        ...[
          '--health-interval',
          '30s',
          '--reconcile-timeout',
          `${PASS_DEADLINE_MS}ms`,
          '--latch-retry',
          '15s',
        ],
        ...['--transient-backoff', '200ms,4s', '--quota-backoff', '1s,8s'],
      ],
    });
    cleanup.push(() => replicas.stop());
    replicas.add('a', await freePort());
    replicas.add('b', await freePort());

    const names = Array.from({ length: o.proxies }, (_, i) => `c${String(i).padStart(2, '0')}`);
    const providerOf = new Map<string, ChaosProvider>(
      names.map((n, i) => [n, PROVIDERS[i % PROVIDERS.length]!]),
    );
    for (const [i, name] of names.entries())
      await createProxy(cp, NS, name, backends.spec(providerOf.get(name)!, i, sentinel));
    replicas.start('a');
    replicas.start('b');
    replicas.scrapeEvery(1_000);
    say(`chaos: ${names.length} Proxies, replicas started, logs in ${dir}`);

    // The schedule: seeded moments within the chaos phase.
    type Step = { at: number; what: string; run: () => Promise<void> };
    const steps: Step[] = [];
    const deleted: string[] = [];
    let kills = 0;
    for (let k = 0; k < o.kills; k++) {
      steps.push({
        at: o.chaosMs * ((k + 0.2 + 0.6 * random()) / o.kills),
        what: 'kill',
        run: async () => {
          // A kill lands on a running process: right after another kill, or while a replica
          // that lost its lease restarts, a slot may be down for a moment, so wait for one.
          // Bounded by attempts, not a clock: a run where no replica stays up counts the miss.
          for (let attempt = 0; attempt < 600; attempt++) {
            const leader = await replicas.leader();
            const up = replicas.slots().filter((s) => replicas.running(s));
            const target = leader && random() < 0.75 ? leader : up[Math.floor(random() * up.length)];
            if (target && (await replicas.kill(target, 500 + Math.floor(random() * 2_500)))) {
              kills++;
              return;
            }
            await sleep(250);
          }
        },
      });
    }
    let apiRestarts = 0;
    steps.push({
      at: o.chaosMs * 0.45,
      what: 'api server restart',
      run: async () => {
        await cp.restartApiServer({ downMs: 3_000 });
        apiRestarts++;
      },
    });
    let rotations = 0;
    steps.push({
      at: o.chaosMs * 0.6,
      what: 'credential rotation',
      run: async () => {
        await backends.rotateCredentials(2_000);
        rotations++;
      },
    });
    const failedWithoutInstance = new Set<string>();
    const deletable = [...names];
    for (let d = 0; d < o.deletes; d++) {
      const name = deletable.splice(Math.floor(random() * deletable.length), 1)[0]!;
      steps.push({
        at: o.chaosMs * (0.1 + 0.8 * random()),
        what: `delete ${name}`,
        run: async () => {
          // A Proxy latched Failed with no instance (its create failed after it was accepted, and
          // the backoff now holds the next one) has nothing to delete, so no Deleted event is owed.
          const before = await cp.request('GET', proxiesPath(NS, name));
          const st = before.status === 200 ? before.json<ProxyObject>().status : undefined;
          if (st?.phase === 'Failed' && !st.providerID) failedWithoutInstance.add(name);
          const r = await cp.request('DELETE', proxiesPath(NS, name));
          if (r.status !== 200 && r.status !== 202) throw new Error(`delete ${name}: ${r.status} ${r.body}`);
          deleted.push(name);
        },
      });
    }
    steps.sort((a, b) => a.at - b.at);

    const plan = new FaultPlan(backends, random, SLOW_CREATE_MS);
    const started = Date.now();
    while (Date.now() - started < o.chaosMs || steps.length > 0) {
      plan.tick();
      while (steps.length > 0 && steps[0]!.at <= Date.now() - started) {
        const step = steps.shift()!;
        say(`chaos: ${Math.round((Date.now() - started) / 1000)}s ${step.what}`);
        await step.run();
      }
      await sleep(200 + Math.floor(random() * 500));
    }
    plan.calm();
    say('chaos: calm; waiting for every Proxy to settle');
    for (const slot of replicas.slots()) replicas.start(slot);

    // Settling: every live Proxy Ready, every deleted one gone. Fails only on a stall.
    let signature = '';
    let lastMove = Date.now();
    let items: ProxyObject[] = [];
    for (;;) {
      items = await listProxies(cp).catch(() => items);
      const live = items.filter((p) => !deleted.includes(p.metadata.name));
      const settled =
        live.length === names.length - deleted.length &&
        live.every((p) => p.status?.phase === 'Ready') &&
        items.every((p) => !deleted.includes(p.metadata.name));
      if (settled) break;
      // Phases only: a Proxy retried and failing again writes a new message each time, and that
      // is no progress.
      const now = JSON.stringify(items.map((p) => [p.metadata.name, p.status?.phase]));
      if (now !== signature) {
        signature = now;
        lastMove = Date.now();
      }
      if (Date.now() - lastMove > o.stallMs) {
        const stuck = items
          .filter((p) => p.status?.phase !== 'Ready' || deleted.includes(p.metadata.name))
          .map((p) => `${p.metadata.name} ${p.status?.phase}: ${p.status?.message}`);
        throw new Error(
          `chaos: nothing moved for ${o.stallMs} ms; not settled:\n${stuck.join('\n')}\nlogs in ${dir}`,
        );
      }
      await sleep(500);
    }
    // The gauges are read at scrape time; one more scrape of each process after settling.
    await sleep(1_500);
    const finalScrapes = await Promise.all(replicas.slots().map((s) => replicas.scrape(s)));

    // ---- end checks, counted before any GC pass
    const problems: string[] = [];
    const live = items.filter((p) => !deleted.includes(p.metadata.name));
    const nameOf = (p: ProxyObject) => backendName(p.metadata.namespace, p.metadata.name);
    const inv = checkInventory(backends.inventory(), live, nameOf);
    if (inv.orphans.length) problems.push(`orphans: ${inv.orphans.join(', ')}`);
    if (inv.duplicates.length) problems.push(`duplicates: ${inv.duplicates.join(', ')}`);
    if (inv.missing.length) problems.push(`Ready without an instance: ${inv.missing.join(', ')}`);
    if (inv.leaked.length) problems.push(`leaked secondary resources: ${inv.leaked.join(', ')}`);
    const secrets = secretLines(replicas.incarnations, backends.secrets);
    problems.push(...secrets.hits.slice(0, 5));
    const events = await listEvents(cp, NS);
    const leakyEvents = events.filter((e) => e.message.includes(sentinel)).length;
    if (leakyEvents) problems.push(`${leakyEvents} events carry the cloud-init sentinel`);
    if (items.some((p) => JSON.stringify(p.status ?? {}).includes(sentinel)))
      problems.push('a Proxy status carries the cloud-init sentinel');
    const created = new Set(events.filter((e) => e.reason === 'Created').map((e) => e.involvedObject.name));
    problems.push(
      ...checkMetricsAndEvents({
        incarnations: replicas.incarnations,
        cloudAnswered: backends.cloud.answered,
        cloudClassesByName: backends.cloud.classesByName,
        events,
        ready: live,
        deletedWithInstance: deleted.filter((n) => created.has(n) && !failedWithoutInstance.has(n)),
        providerOf: (n) => providerOf.get(n),
        backendNameOf: (n) => backendName(NS, n),
        finalScrapes,
      }),
    );
    const faults = plan.counts(PASS_DEADLINE_MS);
    for (const [kind, n] of Object.entries(faults)) if (n === 0) problems.push(`no ${kind} fault was served`);
    if (kills !== o.kills) problems.push(`${kills} of ${o.kills} kills landed`);
    const lease = await cp.request(
      'GET',
      '/apis/coordination.k8s.io/v1/namespaces/egress-proxies-system/leases/chaos',
    );
    const transitions = lease.json<{ spec?: { leaseTransitions?: number } }>().spec?.leaseTransitions ?? 0;
    if (transitions < 1) problems.push('the Lease never changed hands');
    const rotatedUse = backends.pve.fake.calls.some(
      (c) => c.tokenId === 'root@pam!rotated' && c.status === 200,
    );
    if (!rotatedUse) problems.push('no proxmox call used the rotated token');
    const f = faults;
    const line = [
      `chaos seed=${o.seed} proxies=${names.length} deleted=${deleted.length}`,
      `ready=${live.filter((p) => p.status?.phase === 'Ready').length}/${live.length}`,
      `kills=${kills} processes=${replicas.incarnations.length} lease-transitions=${transitions}`,
      `api-restarts=${apiRestarts} rotations=${rotations}`,
      `instances=${inv.instances} orphans=${inv.orphans.length} duplicates=${inv.duplicates.length} leaked=${inv.leaked.length}`,
      `secret-lines=${secrets.hits.length} log-lines=${secrets.lines} events=${events.length}`,
      `faults=transient:${f.transient},quota:${f.quota},permanent:${f.permanent},slow:${f.slow},async:${f.async}`,
      problems.length ? 'FAIL' : 'OK',
    ].join(' ');
    ok = problems.length === 0;
    return { ok, line, problems, faults, dir };
  } finally {
    for (const c of cleanup.reverse()) await c().catch(() => {});
    // A failed run keeps its logs for a look; a passing one leaves nothing behind.
    if (ok) rmSync(dir, { recursive: true, force: true });
  }
}
