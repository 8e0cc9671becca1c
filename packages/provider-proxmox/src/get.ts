import { type Instance, InstanceState, notFoundError } from '@egress-proxies/contract';
import type { VmConfig } from './backend.js';
import type { Context } from './context.js';
import { isAgentNotConfigured, isAgentNotRunning } from './errors.js';
import { parseProviderId } from './id.js';
import { parseDescription } from './marks.js';
import { assertSettled, resolve } from './resolve.js';
import { type AgentAnswer, firstIPv4, mapState, needsAgent } from './state.js';
import { readUnlisted } from './unlisted.js';

/** Get: resources, config, status and (only when QEMU runs) the agent; at most four requests. */
export async function getInstance(ctx: Context, id: string): Promise<Instance> {
  const { vmid, name } = parseProviderId(id);
  const listed = await resolve(ctx, vmid);
  let e: { node: string } | undefined = listed;
  let cfg: VmConfig | undefined;
  if (!listed) {
    // Unlisted is not absent: only a direct read that says "does not exist" is NotFound.
    const direct = await readUnlisted(ctx, vmid, ctx.cfg.nodes, `VM ${vmid} (${name})`);
    if (!direct) throw notFoundError(`VM ${vmid} (${name}) does not exist`);
    e = { node: direct.node };
    cfg = direct.cfg;
  }
  if (!e) throw notFoundError(`VM ${vmid} (${name}) does not exist`);
  cfg ??= await ctx.api.vmConfig(ctx.signal, e.node, vmid);
  assertSettled(e.node, vmid, cfg.lock);
  const mark = parseDescription(typeof cfg.description === 'string' ? cfg.description : undefined);
  if (cfg.name !== name || !mark.managed) throw notFoundError(`VM ${vmid} is not ${name} of ours`);
  const base: Instance = { id, uid: mark.uid, state: InstanceState.Stopped };
  if (mark.createdAt) base.createdAt = mark.createdAt;
  if (mark.installation) base.installation = mark.installation;
  if (mark.egress) base.egress = { ...mark.egress };
  if (cfg.lock === 'suspended') return done(ctx, base, vmid, e.node);

  const st = await ctx.api.vmStatus(ctx.signal, e.node, vmid);
  let agent: AgentAnswer = { kind: 'not-asked' };
  if (needsAgent(st.status, st.qmpstatus)) {
    try {
      const ip = firstIPv4(await ctx.api.agentInterfaces(ctx.signal, e.node, vmid));
      agent = ip ? { kind: 'address', ip } : { kind: 'no-ipv4' };
    } catch (err) {
      if (isAgentNotRunning(err)) agent = { kind: 'not-running' };
      else if (isAgentNotConfigured(err)) agent = { kind: 'not-configured' };
      else throw err;
    }
  }
  base.state = mapState(st.status, st.qmpstatus, agent);
  if (base.state === InstanceState.Running && agent.kind === 'address') {
    base.ip = agent.ip;
    ctx.logger.log(2, 'proxmox agent address', { vmid, ip: agent.ip });
  }
  return done(ctx, base, vmid, e.node);
}

function done(ctx: Context, inst: Instance, vmid: number, node: string): Instance {
  ctx.logger.log(1, 'proxmox vm fetched', { vmid, node, state: inst.state });
  return inst;
}
