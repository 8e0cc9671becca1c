import type { CoreV1Api } from '@kubernetes/client-node';
import { kubeCall } from './kube-call-options.js';
import { describeKubeError, isKubeNotFound } from './kube-errors.js';

/** The Service the chart gives a pool's gateway: `<pool>-gateway` in the pool's namespace. */
export const gatewayServiceName = (pool: string) => `${pool}-gateway`;

/** What the pool's status says about its gateway. */
export interface GatewayObservation {
  /** `<service>.<namespace>.svc:<port>`, only when that Service exists. */
  endpoint?: string;
  ready: boolean;
  reason: 'ServiceFound' | 'NoService' | 'Disabled' | 'CannotRead';
  message: string;
}

/**
 * Looks for the pool's gateway Service, so status.gateway names an endpoint that exists. The
 * operator does not run gateways itself: the chart's `gateways` list (or `egress-proxies gateway
 * --pool` run by hand behind a Service of that name) does.
 */
export async function observeGateway(
  core: CoreV1Api,
  pool: { namespace: string; name: string },
  enabled: boolean,
  signal: AbortSignal,
): Promise<GatewayObservation> {
  const name = gatewayServiceName(pool.name);
  if (!enabled) return { ready: false, reason: 'Disabled', message: 'spec.gateway.enabled is false' };
  try {
    const svc = await core.readNamespacedService({ name, namespace: pool.namespace }, kubeCall({ signal }));
    const ports = svc.spec?.ports ?? [];
    const port = (ports.find((p) => p.name === 'proxy') ?? ports[0])?.port;
    if (port === undefined)
      return { ready: false, reason: 'NoService', message: `Service ${name} has no port` };
    return {
      endpoint: `${name}.${pool.namespace}.svc:${port}`,
      ready: true,
      reason: 'ServiceFound',
      message: `Service ${name} serves the pool's gateway`,
    };
  } catch (err) {
    if (signal.aborted) throw err;
    if (isKubeNotFound(err))
      return {
        ready: false,
        reason: 'NoService',
        message: `no Service ${name} in ${pool.namespace}: deploy the gateway (the chart's gateways list)`,
      };
    return {
      ready: false,
      reason: 'CannotRead',
      message: `cannot read Service ${name}: ${describeKubeError(err)}`,
    };
  }
}
