import { InstanceState } from '@egress-proxies/contract';
import type { DomainInterface } from 'libvirt-rpc-ts';
import { DomainState, IPAddrType } from 'libvirt-rpc-ts/codes';

/** libvirt's state names, as the state table and logs spell them. */
export const DOMAIN_STATE_NAMES: Record<number, string> = {
  [DomainState.NOSTATE]: 'nostate',
  [DomainState.RUNNING]: 'running',
  [DomainState.BLOCKED]: 'blocked',
  [DomainState.PAUSED]: 'paused',
  [DomainState.SHUTDOWN]: 'shutdown',
  [DomainState.SHUTOFF]: 'shutoff',
  [DomainState.CRASHED]: 'crashed',
  [DomainState.PMSUSPENDED]: 'pmsuspended',
};

export function stateName(state: number): string {
  return DOMAIN_STATE_NAMES[state] ?? `unknown(${state})`;
}

/** Running or blocked: the domain is up and the only thing missing may be its address. */
export function isUp(state: number): boolean {
  return state === DomainState.RUNNING || state === DomainState.BLOCKED;
}

/**
 * The state table: nostate is Provisioning; running or blocked is Running with an address and
 * Provisioning without; everything else, unknown codes included, is Stopped.
 */
export function mapState(state: number, ip: string | undefined): InstanceState {
  if (state === DomainState.NOSTATE) return InstanceState.Provisioning;
  if (isUp(state)) return ip ? InstanceState.Running : InstanceState.Provisioning;
  return InstanceState.Stopped;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** A routable IPv4 literal: not loopback, link-local, unspecified, multicast or broadcast. */
export function isRoutableIPv4(addr: string): boolean {
  const m = IPV4.exec(addr);
  if (!m) return false;
  const o = m.slice(1).map(Number);
  if (o.some((n) => n > 255)) return false;
  const [a, b] = o as [number, number, number, number];
  if (a === 0 || a === 127 || a >= 224) return false;
  if (a === 169 && b === 254) return false;
  return true;
}

/** The first routable IPv4 address over all interfaces, in the order the source gave them. */
export function firstIPv4(interfaces: readonly DomainInterface[]): string | undefined {
  for (const iface of interfaces) {
    for (const a of iface.addrs) {
      if (a.type === IPAddrType.IPV4 && isRoutableIPv4(a.addr)) return a.addr;
    }
  }
  return undefined;
}
