import { InstanceState } from '@egress-proxies/contract';

/** What the guest agent said, reduced to what the state table needs (seed 000 §8). */
export type AgentAnswer =
  | { kind: 'address'; ip: string }
  | { kind: 'no-ipv4' }
  | { kind: 'not-running' }
  | { kind: 'not-configured' }
  | { kind: 'not-asked' };

/** Whether the agent must be asked at all: only a running QEMU in `running` has one to ask. */
export function needsAgent(status: string, qmpstatus: string | undefined): boolean {
  return status === 'running' && qmpstatus === 'running';
}

/** The seeds' mapping table, row by row. */
export function mapState(status: string, qmpstatus: string | undefined, agent: AgentAnswer): InstanceState {
  if (status !== 'running') return InstanceState.Stopped;
  if (qmpstatus === 'prelaunch') return InstanceState.Provisioning;
  if (qmpstatus !== 'running') return InstanceState.Stopped;
  switch (agent.kind) {
    case 'address':
      return InstanceState.Running;
    case 'no-ipv4':
    case 'not-running':
      return InstanceState.Provisioning;
    case 'not-configured':
      return InstanceState.Stopped;
    default:
      return InstanceState.Provisioning;
  }
}

export interface AgentInterface {
  name?: string;
  'ip-addresses'?: { 'ip-address'?: string; 'ip-address-type'?: string; prefix?: number }[];
}

/** The first routable IPv4 in the agent's order: loopback, link-local and unspecified are skipped. */
export function firstIPv4(ifaces: readonly AgentInterface[]): string | undefined {
  for (const i of ifaces) {
    if (i.name === 'lo') continue;
    for (const a of i['ip-addresses'] ?? []) {
      const ip = a['ip-address'];
      if (a['ip-address-type'] !== 'ipv4' || !ip) continue;
      if (/^(127\.|169\.254\.|0\.)/.test(ip)) continue;
      return ip;
    }
  }
  return undefined;
}
