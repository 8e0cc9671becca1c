import { type CoreV1Api, type CustomObjectsApi, PatchStrategy } from '@kubernetes/client-node';
import { parseDuration } from '../api/duration.js';
import { GROUP, PROXY, VERSION } from '../api/group.js';
import type { ProxyObject } from '../api/proxy.js';
import {
  POOL_LABEL,
  PROXY_POOL,
  type ProxyPoolObject,
  type ProxyPoolSpec,
  proxyPoolGatewaySchema,
  validateProxyPoolSpec,
} from '../api/proxy-pool.js';
import { validate } from '../api/schema.js';
import { type ProxyUsers, proxyUsersFrom } from '../gateway/basic-auth.js';
import type { CooldownMark, GatewayMember } from '../gateway/member-table.js';
import type { GatewaySpec } from '../gateway/spec-settings.js';
import { COOLED_DOWN_ANNOTATION, formatCooldownMark, parseCooldownMark } from '../pool/cooldown-mark.js';
import { DRAINING_ANNOTATION, parseDrainMark } from '../pool/drain-mark.js';
import { gatewayMember } from '../pool/pool-member.js';
import { kubeCall } from './kube-call-options.js';
import { isKubeConflict, isKubeNotFound } from './kube-errors.js';

export interface PoolRef {
  namespace: string;
  name: string;
}

/** A pool as its gateway reads it: its spec.gateway (defaults filled), Ready members, cooldown marks. */
export interface ClusterPool {
  gateway: GatewaySpec;
  /** spec.autoscale: with it, the gateway holds requests while the pool wakes and reports its load. */
  autoscale?: NonNullable<ProxyPoolSpec['autoscale']>;
  members: GatewayMember[];
  marks: CooldownMark[];
}

/** spec.gateway with the CRD's defaults, for a pool that has none. */
function defaultGatewaySpec(): GatewaySpec {
  const r = validate(proxyPoolGatewaySchema, {}, 'spec.gateway');
  if (!r.ok) throw new Error('the default spec.gateway does not validate');
  return r.value;
}

/**
 * Reads the pool and its member Proxies (by the pool's label): the Ready ones with an address are
 * the members; every member's cooled-down mark is a cooldown for all replicas.
 */
export async function readClusterPool(
  api: CustomObjectsApi,
  pool: PoolRef,
  signal: AbortSignal,
): Promise<ClusterPool> {
  const base = { group: GROUP, version: VERSION, namespace: pool.namespace };
  const [obj, list] = await Promise.all([
    api.getNamespacedCustomObject(
      { ...base, plural: PROXY_POOL.plural, name: pool.name },
      kubeCall({ signal }),
    ) as Promise<ProxyPoolObject>,
    api.listNamespacedCustomObject(
      { ...base, plural: PROXY.plural, labelSelector: `${POOL_LABEL}=${pool.name}` },
      kubeCall({ signal }),
    ) as Promise<{ items: ProxyObject[] }>,
  ]);
  const spec = validateProxyPoolSpec(obj.spec);
  const gateway = spec.gateway ?? defaultGatewaySpec();
  const cooldownMs = parseDuration(gateway.cooldown);
  const members: GatewayMember[] = [];
  const marks: CooldownMark[] = [];
  for (const p of list.items) {
    if (p.metadata.deletionTimestamp) continue;
    // A draining member gets nothing new: its sessions move (as on a cooldown) and the tunnels
    // already open through it go on, counted until they end.
    const draining = parseDrainMark(p.metadata.annotations?.[DRAINING_ANNOTATION]) !== undefined;
    const member = draining ? undefined : gatewayMember(p);
    if (member) members.push(member);
    const mark = parseCooldownMark(p.metadata.annotations?.[COOLED_DOWN_ANNOTATION], cooldownMs);
    if (mark) marks.push({ member: p.metadata.name, until: mark.until, reason: mark.reason });
  }
  return { gateway, members, marks, ...(spec.autoscale ? { autoscale: spec.autoscale } : {}) };
}

/** Conflicting writes of one mark tried before giving up (the next pool refresh writes it again). */
const MARK_ATTEMPTS = 5;

/**
 * Writes a member's cooled-down mark, for the other replicas and the pool controller, unless the
 * mark there ends as late or later already (another replica's, or a write that overtook this one):
 * a mark's end only moves later. The write names the resourceVersion it read, so a change in
 * between is a conflict and the comparison runs again. False when nothing was written.
 */
export async function markCooledDown(
  api: CustomObjectsApi,
  pool: PoolRef,
  mark: { member: string; reason: string; at: number; until: number },
  cooldownMs: number,
  signal?: AbortSignal,
): Promise<boolean> {
  const ref = { group: GROUP, version: VERSION, namespace: pool.namespace, plural: PROXY.plural };
  for (let attempt = 1; ; attempt++) {
    let p: ProxyObject;
    try {
      p = (await api.getNamespacedCustomObject(
        { ...ref, name: mark.member },
        kubeCall(signal ? { signal } : {}),
      )) as ProxyObject;
    } catch (err) {
      // A member that is gone needs no mark.
      if (isKubeNotFound(err)) return false;
      throw err;
    }
    const there = parseCooldownMark(p.metadata.annotations?.[COOLED_DOWN_ANNOTATION], cooldownMs);
    if (there && there.until >= mark.until) return false;
    const metadata = {
      resourceVersion: p.metadata.resourceVersion,
      annotations: { [COOLED_DOWN_ANNOTATION]: formatCooldownMark(mark) },
    };
    try {
      await api.patchNamespacedCustomObject(
        { ...ref, name: mark.member, body: { metadata } },
        kubeCall({ contentType: PatchStrategy.MergePatch, ...(signal ? { signal } : {}) }),
      );
      return true;
    } catch (err) {
      if (isKubeNotFound(err)) return false;
      if (!isKubeConflict(err) || attempt >= MARK_ATTEMPTS) throw err;
    }
  }
}

/** The proxy users in a Secret (key: user, value: password), as the gateway's users. */
export async function readUsersSecret(
  core: CoreV1Api,
  namespace: string,
  name: string,
  signal: AbortSignal,
): Promise<ProxyUsers> {
  const s = await core.readNamespacedSecret({ namespace, name }, kubeCall({ signal }));
  const entries = Object.entries(s.data ?? {}).map(([user, value]): [string, string] => [
    user,
    Buffer.from(value, 'base64').toString('utf8'),
  ]);
  return proxyUsersFrom(entries, `Secret ${namespace}/${name}`);
}
