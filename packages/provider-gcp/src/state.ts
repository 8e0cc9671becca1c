import { InstanceState } from '@egress-proxies/contract';

/**
 * Compute instance status (plus whether the proxy's address is known) -> contract state.
 * RUNNING without an address stays Provisioning: the proxy is not usable until it has one.
 * An unknown status maps to Stopped: it exists, and nothing says it serves traffic.
 */
export function mapState(status: string | undefined, ip: string | undefined): InstanceState {
  switch (status) {
    case 'PROVISIONING':
    case 'STAGING':
    case 'REPAIRING':
      return InstanceState.Provisioning;
    case 'RUNNING':
      return ip ? InstanceState.Running : InstanceState.Provisioning;
    case 'STOPPING':
    case 'STOPPED':
    case 'SUSPENDING':
    case 'SUSPENDED':
      return InstanceState.Stopped;
    case 'TERMINATED':
      return InstanceState.Terminated;
    default:
      return InstanceState.Stopped;
  }
}

export const GCP_STATES = [
  InstanceState.Provisioning,
  InstanceState.Running,
  InstanceState.Stopped,
  InstanceState.Terminated,
] as const;
