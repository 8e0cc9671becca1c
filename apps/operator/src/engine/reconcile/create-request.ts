import { type CallOptions, type CreateRequest, instanceName } from '@egress-proxies/contract';
import { API_VERSION, PROXY } from '../../api/group.js';
import type { ProxySpec } from '../../api/proxy.js';
import type { CreateOperationSlot, CreateOperationView } from '../operations/create-operations.js';
import { progressLogger } from '../operations/progress-lines.js';
import { ConditionType } from './conditions.js';
import { condition, type PassState } from './pass-state.js';
import { done, next, type StepOutcome } from './step-outcome.js';
import type { ProviderHandle } from './types.js';

/**
 * The create request of the Proxy, or the end of the pass when its cloud-init Secret cannot be
 * read (a transient backoff: the Secret may appear). With `cloudInitOptional` (a create run only
 * to learn what to delete), such a Secret is left out instead and this never ends the pass.
 */
export async function createRequest(
  s: PassState,
  spec: ProxySpec,
  o: { cloudInitOptional?: boolean } = {},
): Promise<StepOutcome<CreateRequest>> {
  const { metadata } = s.proxy;
  let cloudInit: string | undefined = spec.cloudInit?.inline;
  const ref = spec.cloudInit?.secretRef;
  if (ref) {
    try {
      cloudInit = await s.ctx.readCloudInitSecret(s.proxy, ref.name, ref.key, s.ctx.signal);
    } catch (err) {
      if (o.cloudInitOptional) return createRequest(s, { ...spec, cloudInit: undefined });
      const message = `cloud-init Secret ${ref.name} key ${ref.key}: ${err instanceof Error ? err.message : String(err)}`;
      s.status.message = message;
      condition(s, ConditionType.Provisioned, 'False', 'CloudInitUnavailable', message);
      return done({ type: 'backoff', tier: 'transient' }, 'transient');
    }
  }
  return next({
    name: instanceName(metadata.namespace, metadata.name),
    namespace: metadata.namespace,
    proxyName: metadata.name,
    uid: metadata.uid ?? '',
    port: spec.port,
    placement: { ...(spec.placement ?? {}) },
    installation: s.ctx.installation,
    owner: { apiVersion: API_VERSION, kind: PROXY.kind, name: metadata.name, uid: metadata.uid ?? '' },
    ...(cloudInit !== undefined ? { cloudInit } : {}),
  });
}

/** Starts the tracked create of `req`; the provider's progress lines reach the operation. */
export function startCreate(
  s: PassState,
  ops: CreateOperationSlot,
  req: CreateRequest,
  handle: ProviderHandle,
  token: string,
  hash: string,
  settle = false,
): CreateOperationView {
  return ops.start(
    { provider: handle.name, token, hash, ...(settle ? { settle } : {}) },
    (signal, progress) => {
      const fn = (o: CallOptions) =>
        handle.provider.create(req, { ...o, logger: progressLogger(o.logger, progress) });
      return s.ctx.call ? s.ctx.call(handle, 'create', fn, signal) : fn({ signal });
    },
  );
}
