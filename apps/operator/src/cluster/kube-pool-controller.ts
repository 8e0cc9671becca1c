import { CoreV1Api, CustomObjectsApi, type KubeConfig, PatchStrategy } from '@kubernetes/client-node';
import { parseDuration } from '../api/duration.js';
import { GROUP, PROXY, VERSION } from '../api/group.js';
import type { ProxyObject } from '../api/proxy.js';
import {
  PROXY_POOL,
  type ProxyPoolObject,
  type ProxyPoolStatus,
  poolSelector,
  RECYCLE_ANNOTATION,
  TEMPLATE_HASH_LABEL,
  validateProxyPoolSpec,
} from '../api/proxy-pool.js';
import { type OpLogger, silentOpLogger } from '../domain/op-logger.js';
import {
  type AutoscaleDecision,
  type AutoscalePolicy,
  autoscalePolicy,
  busyByMember,
  type LoadReport,
  planAutoscale,
} from '../pool/autoscale-plan.js';
import { COOLED_DOWN_ANNOTATION, parseCooldownMark } from '../pool/cooldown-mark.js';
import { DRAINING_ANNOTATION, formatDrainMark, parseDrainMark } from '../pool/drain-mark.js';
import {
  DEFAULT_DRAIN_TIMEOUT_MS,
  type DrainingMember,
  drainingLoad,
  drainsEnded,
  reinstated,
  splitDeletions,
} from '../pool/member-drain.js';
import { planInputFor } from '../pool/plan-input.js';
import { type PlanMember, planPool } from '../pool/plan-pool.js';
import { memberReady, poolMemberStatus } from '../pool/pool-member.js';
import { templateHash } from '../pool/template-hash.js';
import { observeGateway } from './gateway-service.js';
import { kubeCall } from './kube-call-options.js';
import { isKubeNotFound } from './kube-errors.js';
import {
  autoscaleStatus,
  condition,
  distinctEgress,
  drainingMessage,
  memberProxy,
} from './kube-pool-objects.js';
import { LOAD_STALE_MS, readLoadReports } from './pool-load-lease.js';

export interface KubePoolControllerOptions {
  kubeConfig: KubeConfig;
  /** One namespace, or all when absent. */
  namespace?: string;
  logger?: OpLogger;
  intervalMs?: number;
  now?: () => number;
  /** Passes run only while this says so (the operator's leader election); always when absent. */
  isLeader?: () => boolean;
}

/**
 * ProxyPools in the cluster: each pass lists the pools and their member Proxies (by label), lets
 * planPool decide, creates members owned by the pool (ownerReferences, so Kubernetes' garbage
 * collector deletes them with it) and writes the pool's status. The Proxy reconciler does the rest.
 */
export class KubePoolController {
  readonly #api: CustomObjectsApi;
  readonly #core: CoreV1Api;
  readonly #opts: KubePoolControllerOptions;
  readonly #log: OpLogger;
  readonly #kc: KubeConfig;
  #timer?: NodeJS.Timeout;
  #abort = new AbortController();
  #running?: Promise<void>;

  constructor(opts: KubePoolControllerOptions) {
    this.#opts = opts;
    this.#kc = opts.kubeConfig;
    this.#api = opts.kubeConfig.makeApiClient(CustomObjectsApi);
    this.#core = opts.kubeConfig.makeApiClient(CoreV1Api);
    this.#log = (opts.logger ?? silentOpLogger).child({ component: 'pools' });
  }

  start(): void {
    const tick = () => {
      if (this.#abort.signal.aborted) return;
      this.#running = this.reconcileAll(this.#abort.signal)
        .catch((err) => this.#log.warn({ error: String(err) }, 'pool pass failed'))
        .finally(() => {
          this.#timer = setTimeout(tick, this.#opts.intervalMs ?? 2000);
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    clearTimeout(this.#timer);
    await this.#running;
  }

  async #list<T>(
    plural: string,
    signal: AbortSignal,
    labelSelector?: string,
    namespace = this.#opts.namespace,
  ) {
    const base = { group: GROUP, version: VERSION, plural, ...(labelSelector ? { labelSelector } : {}) };
    const r = (await (namespace
      ? this.#api.listNamespacedCustomObject({ ...base, namespace }, kubeCall({ signal }))
      : this.#api.listClusterCustomObject(base, kubeCall({ signal })))) as { items: T[] };
    return r.items;
  }

  /** One pass over every pool. */
  async reconcileAll(signal: AbortSignal): Promise<void> {
    if (this.#opts.isLeader && !this.#opts.isLeader()) return;
    for (const pool of await this.#list<ProxyPoolObject>(PROXY_POOL.plural, signal)) {
      if (pool.metadata.deletionTimestamp) continue;
      try {
        await this.reconcile(pool, signal);
      } catch (err) {
        this.#log.warn(
          { pool: `${pool.metadata.namespace}/${pool.metadata.name}`, error: String(err) },
          'pool reconcile failed',
        );
      }
    }
  }

  async reconcile(pool: ProxyPoolObject, signal: AbortSignal): Promise<void> {
    const { namespace, name } = pool.metadata;
    const spec = validateProxyPoolSpec(pool.spec);
    const now = (this.#opts.now ?? Date.now)();
    const all = await this.#list<ProxyObject>(PROXY.plural, signal, poolSelector(name), namespace);
    const live = all.filter((p) => !p.metadata.deletionTimestamp);
    // A gateway's mark holds until the end it names (older marks: the pool's cooldown period).
    const cooldownMs = parseDuration(spec.gateway?.cooldown ?? '60s');
    const cooledNow = (p: ProxyObject) => {
      const mark = parseCooldownMark(p.metadata.annotations?.[COOLED_DOWN_ANNOTATION], cooldownMs);
      return mark !== undefined && now < mark.until;
    };
    // The gateway replicas' reports (an autoscaled pool's): its size, and which members carry
    // connections or sessions, so a scale-down takes the idle ones first.
    const reports = spec.autoscale ? await readLoadReports(this.#kc, namespace, name, signal) : [];
    const busy = busyByMember(reports, now, LOAD_STALE_MS);
    const planMember = (p: ProxyObject): PlanMember => ({
      name: p.metadata.name,
      ...(p.spec.provider ? { provider: p.spec.provider } : {}),
      ...(p.spec.placement?.zone ? { zone: p.spec.placement.zone } : {}),
      createdAt: Date.parse(p.metadata.creationTimestamp ?? '') || now,
      ready: memberReady(p),
      templateHash: p.metadata.labels?.[TEMPLATE_HASH_LABEL] ?? '',
      cooledDown: cooledNow(p),
      ...(p.status?.egressIP ? { egressIP: p.status.egressIP } : {}),
      ...(busy.has(p.metadata.name) ? { busy: busy.get(p.metadata.name) } : {}),
    });
    const recycle = pool.metadata.annotations?.[RECYCLE_ANNOTATION];
    const scale = spec.autoscale
      ? await this.#autoscale(pool, autoscalePolicy(spec.autoscale), spec.replicas, now, reports, signal)
      : undefined;
    const size = scale?.replicas ?? spec.replicas;
    // Members chosen to go earlier that the gateways still reported busy: each goes once the
    // replicas report it idle or its drain times out, or serves again if the pool wants it back.
    const drains = await this.#settleDrains(
      pool,
      live,
      { reports, now, size, timeoutMs: drainTimeoutMs(spec.autoscale?.drainTimeout) },
      signal,
    );
    // The plan is over the members that serve: a draining one is neither kept nor deleted twice.
    const serving = live.filter(
      (p) => !drains.draining.has(p.metadata.name) && !drains.deleted.includes(p.metadata.name),
    );
    const members = serving.map(planMember);
    const plan = planPool(planInputFor({ ...spec, replicas: size }, members, now, recycle));
    const hash = templateHash(spec.template);
    // A member some fresh report shows busy drains instead of going now, so its tunnels are not cut.
    const { deleteNow, drain } = splitDeletions(plan.delete, (n) => busy.get(n) ?? 0, now);
    for (const d of deleteNow) {
      await this.#deleteMember(namespace, d.name, signal);
      this.#log.info(
        { pool: `${namespace}/${name}`, member: d.name, reason: d.reason },
        'pool: member deleted',
      );
    }
    for (const d of drain) {
      await this.#markDraining(namespace, d.name, formatDrainMark(d), signal);
      drains.draining.set(d.name, d.since);
      this.#log.info(
        { pool: `${namespace}/${name}`, member: d.name, reason: d.reason, busy: busy.get(d.name) },
        'pool: member still carries connections; draining it',
      );
    }
    for (const t of plan.create) {
      const body = memberProxy(pool, spec.template, t, hash);
      await this.#api.createNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace, plural: PROXY.plural, body },
        kubeCall({ signal }),
      );
      this.#log.info({ pool: `${namespace}/${name}`, member: body.metadata.name }, 'pool: member created');
    }
    // The recycle annotation is done once its member is gone: dropped, so the same name can be asked again.
    if (recycle && !live.some((p) => p.metadata.name === recycle))
      await this.#patchPool(
        namespace,
        name,
        { metadata: { annotations: { [RECYCLE_ANNOTATION]: null } } },
        signal,
      );
    const gone = new Set([...deleteNow.map((d) => d.name), ...drains.deleted]);
    const kept = live.filter((p) => !gone.has(p.metadata.name));
    const keptServing = kept.filter((p) => !drains.draining.has(p.metadata.name));
    const ready = keptServing.filter(memberReady).length;
    const updated =
      keptServing.filter((p) => p.metadata.labels?.[TEMPLATE_HASH_LABEL] === hash).length +
      plan.create.length;
    const drainingNow = kept.filter((p) => drains.draining.has(p.metadata.name)).map((p) => p.metadata.name);
    const old = pool.status?.conditions;
    const gw = await observeGateway(this.#core, { namespace, name }, spec.gateway?.enabled !== false, signal);
    const status: ProxyPoolStatus = {
      replicas: keptServing.length + plan.create.length,
      // The scale subresource's selector: an HPA counts the pool's members by it.
      selector: poolSelector(name),
      ...(scale ? { autoscale: autoscaleStatus(scale) } : {}),
      ready,
      updated,
      observedGeneration: pool.metadata.generation ?? 0,
      members: kept.map((p) => {
        const since = drains.draining.get(p.metadata.name);
        return poolMemberStatus(p, {
          cooledDown: cooledNow(p),
          ...(since !== undefined ? { drainingSince: since } : {}),
        });
      }),
      ...(gw.endpoint ? { gateway: gw.endpoint } : {}),
      conditions: [
        condition(
          'Ready',
          ready >= size && ready >= (spec.rotation?.minReady ?? 0),
          ready >= size ? 'AllReady' : 'NotAllReady',
          `${ready}/${size} members Ready`,
          old,
        ),
        condition(
          'Scaling',
          plan.create.length > 0 ||
            plan.delete.some((d) => d.reason === 'scale-down') ||
            keptServing.length !== size ||
            drainingNow.length > 0,
          scale?.reason ?? 'Replicas',
          (scale
            ? `${scale.message} (${keptServing.length} members now)`
            : `${keptServing.length} members for ${size} replicas`) + drainingMessage(drainingNow),
          old,
        ),
        condition(
          'Rotating',
          plan.doomed.length > 0,
          plan.doomed.length ? 'Replacing' : 'UpToDate',
          plan.doomed.length ? `replacing ${plan.doomed.join(', ')}` : 'every member is current',
          old,
        ),
        condition('Gateway', gw.ready, gw.reason, gw.message, old),
        distinctEgress(members, spec.rotation?.onDuplicateEgress, old),
      ],
    };
    // A merge patch keeps a field it does not name: a gateway that went away is removed explicitly.
    const body = { status: { ...status, ...(gw.endpoint ? {} : { gateway: null }) } };
    await this.#api.patchNamespacedCustomObjectStatus(
      { group: GROUP, version: VERSION, namespace, plural: PROXY_POOL.plural, name, body },
      kubeCall({ signal, contentType: PatchStrategy.MergePatch }),
    );
  }

  /**
   * Ends the drains that are done (the gateways report the member idle, or its drain timed out:
   * it is deleted) and takes draining members back when the pool wants more members than serve.
   * Returns the members still draining (with since when) and the ones deleted.
   */
  async #settleDrains(
    pool: ProxyPoolObject,
    live: readonly ProxyObject[],
    o: { reports: readonly LoadReport[]; now: number; size: number; timeoutMs: number },
    signal: AbortSignal,
  ): Promise<{ draining: Map<string, number>; deleted: string[] }> {
    const { namespace, name } = pool.metadata;
    const marked: DrainingMember[] = live.flatMap((p) => {
      const m = parseDrainMark(p.metadata.annotations?.[DRAINING_ANNOTATION]);
      return m ? [{ name: p.metadata.name, ...m }] : [];
    });
    const draining = new Map(marked.map((d) => [d.name, d.since]));
    const deleted: string[] = [];
    if (!marked.length) return { draining, deleted };
    const open = drainingLoad(marked, o.reports, o.now, LOAD_STALE_MS);
    for (const e of drainsEnded(marked, open, o.now, o.timeoutMs)) {
      await this.#deleteMember(namespace, e.name, signal);
      draining.delete(e.name);
      deleted.push(e.name);
      this.#log.info(
        { pool: `${namespace}/${name}`, member: e.name, busy: open(e.name) },
        e.why === 'drained'
          ? 'pool: member drained; deleting it'
          : 'pool: member still carries connections at the drain timeout; deleting it',
      );
    }
    const serving = live.length - marked.length;
    const back = reinstated(
      marked.filter((d) => draining.has(d.name)),
      o.size - serving,
    );
    for (const member of back) {
      await this.#markDraining(namespace, member, null, signal);
      draining.delete(member);
      this.#log.info(
        { pool: `${namespace}/${name}`, member },
        'pool: the pool wants more members again; a draining member serves again',
      );
    }
    return { draining, deleted };
  }

  /** Deletes a member Proxy (one already gone is fine). */
  async #deleteMember(namespace: string, member: string, signal: AbortSignal): Promise<void> {
    try {
      await this.#api.deleteNamespacedCustomObject(
        { group: GROUP, version: VERSION, namespace, plural: PROXY.plural, name: member },
        kubeCall({ signal }),
      );
    } catch (err) {
      if (!isKubeNotFound(err)) throw err;
    }
  }

  /** Sets (a mark) or removes (null) a member's draining annotation. */
  async #markDraining(
    namespace: string,
    member: string,
    mark: string | null,
    signal: AbortSignal,
  ): Promise<void> {
    await this.#api.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        namespace,
        plural: PROXY.plural,
        name: member,
        body: { metadata: { annotations: { [DRAINING_ANNOTATION]: mark } } },
      },
      kubeCall({ signal, contentType: PatchStrategy.MergePatch }),
    );
  }

  /** A merge patch of the pool object (its spec or metadata; the status goes through its subresource). */
  async #patchPool(namespace: string, name: string, body: object, signal: AbortSignal): Promise<void> {
    await this.#api.patchNamespacedCustomObject(
      { group: GROUP, version: VERSION, namespace, plural: PROXY_POOL.plural, name, body },
      kubeCall({ signal, contentType: PatchStrategy.MergePatch }),
    );
  }

  /**
   * The autoscaler's size from the gateway replicas' load Leases (stale ones left out); a new size
   * is written to spec.replicas, where the scale subresource and `kubectl get pxp` show it.
   */
  async #autoscale(
    pool: ProxyPoolObject,
    policy: AutoscalePolicy,
    current: number,
    now: number,
    reports: readonly LoadReport[],
    signal: AbortSignal,
  ): Promise<AutoscaleDecision> {
    const { namespace, name } = pool.metadata;
    const was = pool.status?.autoscale;
    const time = (iso?: string) => (iso ? Date.parse(iso) : undefined);
    const lastActiveTime = time(was?.lastActiveTime);
    const lastScaleTime = time(was?.lastScaleTime);
    const decision = planAutoscale({
      policy,
      current,
      reports,
      staleAfterMs: LOAD_STALE_MS,
      now,
      ...(lastActiveTime !== undefined ? { lastActiveTime } : {}),
      ...(lastScaleTime !== undefined ? { lastScaleTime } : {}),
    });
    if (decision.replicas !== current) {
      await this.#patchPool(namespace, name, { spec: { replicas: decision.replicas } }, signal);
      this.#log.info(
        { pool: `${namespace}/${name}`, from: current, to: decision.replicas, reason: decision.reason },
        `pool: ${decision.message}`,
      );
    }
    return decision;
  }
}

/** spec.autoscale.drainTimeout, or the default when the pool names none. */
function drainTimeoutMs(text: string | undefined): number {
  return text === undefined ? DEFAULT_DRAIN_TIMEOUT_MS : parseDuration(text);
}
