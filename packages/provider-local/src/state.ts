import { InstanceState } from '@egress-proxies/contract';

/** What the provider observed about one instance's process. */
export type ProcessCondition =
  /** No pid recorded, the pid is gone, or the pid now belongs to another process. */
  | 'absent'
  /** Our process is alive, the port did not accept a connection. */
  | 'alive-not-accepting'
  /** Our process is alive and its port accepts connections. */
  | 'accepting';

/** The state table (pure): a process that is ours and accepting is the only Running one. */
export function stateOf(condition: ProcessCondition): InstanceState {
  switch (condition) {
    case 'accepting':
      return InstanceState.Running;
    case 'alive-not-accepting':
      return InstanceState.Provisioning;
    default:
      return InstanceState.Stopped;
  }
}
