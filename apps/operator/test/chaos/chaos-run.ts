import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type KubeControlPlane } from '@egress-proxies/testenv-kube';
import type { ProxyObject } from '../../src/api/proxy.js';
import { DEFAULTS } from '../../src/engine/reconcile/pass-state.js';
import { backoffViolations } from '../support/backoff-gaps.js';
import { startClusterWithCrds } from '../support/cluster.js';
import { createProxy, listEvents, patchProxySpec, proxiesPath } from '../support/harness.js';
import { seededRandom } from '../support/seeded-random.js';
import { within } from '../support/within.js';
import { backendName, ChaosBackends, type ChaosProvider, PROVIDERS } from './backends.js';
import { checkInventory, checkMetricsAndEvents, secretLines } from './end-checks.js';
import type { CloudCreate } from './fault-cloud.js';
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
/**
 * The fault cloud's create deadline (its entry's `createTimeout`): past a slow create, and well
 * past the abort grace, so an abort by an edit and one by the deadline are told apart.
 */
const FAULT_CREATE_TIMEOUT_MS = 15_000;
/** How long an edit lets a running create finish before aborting it (`run` has no flag for it). */
const ABORT_GRACE_MS = DEFAULTS.abortGraceMs;
/** The operators' backoff tiers: the gaps between a failed create and the next are held to them. */
const TRANSIENT_BACKOFF = { baseMs: 200, maxMs: 4_000 };
const QUOTA_BACKOFF = { baseMs: 1_000, maxMs: 8_000 };
const backoffFlag = (b: { baseMs: number; maxMs: number }) => `${b.baseMs}ms,${b.maxMs}ms`;

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
    writeFileSync(
      providersPath,
      backends.providersConfig(MODULE, { min: base, max: base + 99 }, `${FAULT_CREATE_TIMEOUT_MS}ms`),
    );

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
        ...['--transient-backoff', backoffFlag(TRANSIENT_BACKOFF)],
        ...['--quota-backoff', backoffFlag(QUOTA_BACKOFF)],
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
    // Two fault-cloud Proxies whose creates never answer: one edited while its create hangs, one
    // left to the create deadline; and one whose creates climb the backoff ladder (Transient
    // three times, then QuotaExceeded twice). None of them is deleted along the way.
    const [edited, deadlined, laddered] = names.filter((n) => providerOf.get(n) === 'fault') as [
      string,
      string,
      string,
    ];
    backends.cloud.hangCreatesOf(backendName(NS, edited));
    backends.cloud.hangCreatesOf(backendName(NS, deadlined));
    backends.cloud.scriptCreates(backendName(NS, laddered), [
      'Transient',
      'Transient',
      'Transient',
      'QuotaExceeded',
      'QuotaExceeded',
    ]);
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
    const deletable = names.filter((n) => ![edited, deadlined, laddered].includes(n));
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
    // Faults land from the start, while the first creates run; the schedule (kills, the API
    // server restart) waits for the edit of a hung create to play out, since a kill would end
    // that create before the edit could.
    let started: number | undefined;
    const edit = editWhileHung(cp, backends, edited, sentinel, say).finally(() => {
      started = Date.now();
    });
    edit.catch(() => {}); // awaited after the chaos phase
    while (started === undefined || Date.now() - started < o.chaosMs || steps.length > 0) {
      plan.tick();
      while (started !== undefined && steps.length > 0 && steps[0]!.at <= Date.now() - started) {
        const step = steps.shift()!;
        say(`chaos: ${Math.round((Date.now() - started) / 1000)}s ${step.what}`);
        await step.run();
      }
      await sleep(200 + Math.floor(random() * 500));
    }
    const hungEdit = await edit;
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
    problems.push(...checkHangs(backends, hungEdit, live, edited, deadlined));
    const backoff = backoffViolations(
      backends.cloud.creates,
      new Set([edited, ...deleted].map((n) => backendName(NS, n))),
      { transientMs: TRANSIENT_BACKOFF.baseMs, quotaMs: QUOTA_BACKOFF.baseMs },
    );
    problems.push(...backoff.violations);
    if (backoff.checked === 0) problems.push('no gap after a failed create was checked against the backoff');
    const f = faults;
    const line = [
      `chaos seed=${o.seed} proxies=${names.length} deleted=${deleted.length}`,
      `ready=${live.filter((p) => p.status?.phase === 'Ready').length}/${live.length}`,
      `kills=${kills} processes=${replicas.incarnations.length} lease-transitions=${transitions}`,
      `api-restarts=${apiRestarts} rotations=${rotations}`,
      `instances=${inv.instances} orphans=${inv.orphans.length} duplicates=${inv.duplicates.length} leaked=${inv.leaked.length}`,
      `secret-lines=${secrets.hits.length} log-lines=${secrets.lines} events=${events.length}`,
      `faults=transient:${f.transient},quota:${f.quota},permanent:${f.permanent},slow:${f.slow},async:${f.async},hang:${f.hang}`,
      `backoff-gaps=${backoff.checked}`,
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

/** The hung create an edit met, and when the edit was sent (wall-clock ms). */
interface HungEdit {
  call: CloudCreate;
  editedAt: number;
}

/**
 * Waits for the first create of `name` to hang on the fault cloud, then edits the Proxy's
 * cloud-init while it hangs, and waits until that create has ended and its cause was reported
 * (before any kill lands, which would end it otherwise). Bounded by the operator's start and the
 * create deadline, with room for a loaded machine.
 */
async function editWhileHung(
  cp: KubeControlPlane,
  backends: ChaosBackends,
  name: string,
  sentinel: string,
  say: (line: string) => void,
): Promise<HungEdit> {
  const key = backendName(NS, name);
  const inFlight = () =>
    backends.cloud.creates.find((c) => c.name === key && c.outcome === 'hang' && c.closedAt === undefined);
  if (!(await within(180_000, () => inFlight() !== undefined, 100)))
    throw new Error(`chaos: the first create of ${name} never reached the fault cloud`);
  const call = inFlight()!;
  const editedAt = Date.now();
  await patchProxySpec(cp, NS, name, { cloudInit: { inline: `#cloud-config\n# ${sentinel}\n# edited\n` } });
  say(`chaos: ${name} edited while its create hangs`);
  await within(FAULT_CREATE_TIMEOUT_MS + 60_000, () => call.cause !== undefined, 100);
  return { call, editedAt };
}

/**
 * The hung creates: the edited Proxy's was aborted by its edit after the abort grace (not by the
 * deadline, nor left hanging) and it runs an instance of its edited generation; the other one's
 * hung creates were ended by the create deadline.
 */
function checkHangs(
  backends: ChaosBackends,
  hung: HungEdit,
  live: ProxyObject[],
  edited: string,
  deadlined: string,
): string[] {
  const problems: string[] = [];
  const { call, editedAt } = hung;
  if (call.cause !== 'spec-changed')
    problems.push(
      `the hung create of ${edited} was not aborted by its edit (ended by: ${call.cause ?? 'nothing reported'})`,
    );
  else if (call.endedAt !== undefined && call.endedAt - editedAt < ABORT_GRACE_MS - 1)
    problems.push(
      `the hung create of ${edited} was aborted ${Math.round(call.endedAt - editedAt)} ms after its edit, within the ${ABORT_GRACE_MS} ms grace`,
    );
  const p = live.find((x) => x.metadata.name === edited);
  if (p && p.status?.instanceGeneration !== p.metadata.generation)
    problems.push(
      `${edited} runs an instance of generation ${p.status?.instanceGeneration}, not its edit's (${p.metadata.generation})`,
    );
  const key = backendName(NS, deadlined);
  const ends = backends.cloud.creates.filter((c) => c.name === key && c.outcome === 'hang');
  if (!ends.some((c) => c.cause === 'deadline'))
    problems.push(
      `no hung create of ${deadlined} was ended by the create deadline (ended by: ${ends.map((c) => c.cause ?? 'nothing reported').join(', ')})`,
    );
  return problems;
}
