import { InstanceState } from '@egress-proxies/contract';
import type { DomainState } from './backend.js';

/**
 * Domain state and address to contract state:
 *
 * | domain state                                      | address | state        |
 * |---------------------------------------------------|---------|--------------|
 * | nostate                                           | any     | Provisioning |
 * | running, blocked                                  | none    | Provisioning |
 * | running, blocked                                  | set     | Running      |
 * | paused, shutdown, shutoff, crashed, pmsuspended   | any     | Stopped      |
 */
export function mapState(state: DomainState, address: string | undefined): InstanceState {
  switch (state) {
    // Stryker disable next-line all: nostate never has an address, so falling through to running gives Provisioning too
    case 'nostate':
      return InstanceState.Provisioning;
    case 'running':
    case 'blocked':
      return address ? InstanceState.Running : InstanceState.Provisioning;
    default:
      return InstanceState.Stopped;
  }
}

export const isUp = (state: DomainState): boolean => state === 'running' || state === 'blocked';
