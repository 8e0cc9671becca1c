import { virsh } from '@egress-proxies/testenv-libvirt';
import { TestEnvVmError } from './errors.js';
import type { AgentCall } from './guest-exec.js';

/**
 * Guest agent commands through libvirt (`virsh qemu-agent-command`), for a domain libvirt runs:
 * libvirt owns the agent's channel then, so the socket client cannot be used.
 */
export function libvirtAgentCall(uri: string, domain: string): AgentCall {
  return async <T>(command: string, args?: Record<string, unknown>, opts: { signal?: AbortSignal } = {}) => {
    const request = JSON.stringify(args ? { execute: command, arguments: args } : { execute: command });
    const out = await virsh(['qemu-agent-command', domain, request], {
      uri,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    let reply: { return?: unknown };
    try {
      reply = JSON.parse(out) as { return?: unknown };
    } catch {
      throw new TestEnvVmError('AGENT_PROTOCOL', `${command} in ${domain}: libvirt returned no JSON`);
    }
    return reply.return as T;
  };
}
