import type { InstanceEgress } from '@egress-proxies/contract';
import { parseDuration } from '../../api/duration.js';
import type { ProxySpec } from '../../api/proxy.js';
import { EGRESS_VERIFIED, verifyEgress } from '../../probe/egress-verify.js';
import { ConditionType, getCondition, removeCondition } from './conditions.js';
import { condition, event, type PassState, rfc3339 } from './pass-state.js';
import { type Done, done } from './step-outcome.js';

/**
 * The last step of a pass over a running proxy: probes it (unless the last probe of a healthy
 * one is recent) and says when to look again. Always ends the pass.
 */
export async function probeProxy(s: PassState, spec: ProxySpec, host: string, port: number): Promise<Done> {
  const probe =
    spec.probe ??
    (s.ctx.defaultProbeTarget
      ? { target: s.ctx.defaultProbeTarget, interval: '60s', timeout: '10s', retries: 2 }
      : undefined);
  const st = s.status;
  if (!probe) {
    if (st.phase !== 'Ready') event(s, 'Normal', 'Ready', `${host}:${port} runs; no probe configured`);
    st.phase = 'Ready';
    st.message = 'running; no probe configured';
    delete st.healthy;
    condition(s, ConditionType.Healthy, 'Unknown', 'NotProbed', 'no probe is configured');
    return done({ type: 'after', ms: s.cfg.resyncMs });
  }
  const intervalMs = parseDuration(probe.interval);
  const nowMs = s.ctx.now().getTime();
  const last = st.lastProbeTime ? Date.parse(st.lastProbeTime) : Number.NaN;
  const settled = st.phase === 'Ready' && st.healthy === true;
  if (settled && Number.isFinite(last) && nowMs - last < intervalMs) {
    return done({ type: 'after', ms: last + intervalMs - nowMs });
  }
  const result = await s.ctx.probe(
    { host, port, target: probe.target, timeoutMs: parseDuration(probe.timeout), retries: probe.retries },
    s.ctx.signal,
  );
  st.lastProbeTime = rfc3339(s.ctx.now());
  if (result.ok) {
    if (st.phase !== 'Ready') event(s, 'Normal', 'Ready', `probe through ${host}:${port} passed`);
    st.phase = 'Ready';
    st.healthy = true;
    st.message = 'ready';
    if (result.egressIP) st.egressIP = result.egressIP;
    condition(
      s,
      ConditionType.Healthy,
      'True',
      'ProbeSucceeded',
      `${probe.target} answered in ${Math.round(result.latencyMs)} ms`,
    );
    await recordEgressVerdict(s, probe, host, port, result.egressIP);
    return done({ type: 'after', ms: intervalMs });
  }
  const message = `probe of ${probe.target} through ${host}:${port} failed: ${result.error ?? 'unknown error'}`;
  if (getCondition(st.conditions, ConditionType.Healthy)?.reason !== 'ProbeFailed') {
    event(s, 'Warning', 'ProbeFailed', message);
  }
  st.phase = 'Running';
  st.healthy = false;
  st.message = message;
  condition(s, ConditionType.Healthy, 'False', 'ProbeFailed', message);
  return done({ type: 'after', ms: Math.min(intervalMs, s.cfg.failedProbeRetryMs) });
}

/** The provider's assignment, copied into the status; dropped (with its verdict) when gone. */
export function recordAssignedEgress(s: PassState, egress: InstanceEgress | undefined): void {
  const assigned: InstanceEgress = {};
  if (egress?.ipv4) assigned.ipv4 = egress.ipv4;
  if (egress?.ipv6) assigned.ipv6 = egress.ipv6;
  if (egress?.ipv6Prefix) assigned.ipv6Prefix = egress.ipv6Prefix;
  if (Object.keys(assigned).length > 0) s.status.assignedEgress = assigned;
  else delete s.status.assignedEgress;
}

/**
 * Sets EgressVerified from what the probe saw against the assignment. With both families
 * assigned and an IPv6 target configured, that target is probed too: one target only ever
 * shows one family. No assignment, no condition.
 */
async function recordEgressVerdict(
  s: PassState,
  probe: { targetIPv6?: string; timeout: string; retries: number },
  host: string,
  port: number,
  seen: string | undefined,
): Promise<void> {
  const assigned = s.status.assignedEgress;
  const seenList = [seen];
  if (assigned?.ipv4 && (assigned.ipv6 || assigned.ipv6Prefix) && probe.targetIPv6) {
    const v6 = await s.ctx.probe(
      {
        host,
        port,
        target: probe.targetIPv6,
        timeoutMs: parseDuration(probe.timeout),
        retries: probe.retries,
      },
      s.ctx.signal,
    );
    seenList.push(v6.ok ? v6.egressIP : undefined);
  }
  const verdict = verifyEgress(assigned, seenList);
  if (!verdict) {
    s.status.conditions = removeCondition(s.status.conditions, EGRESS_VERIFIED);
    return;
  }
  const previous = getCondition(s.status.conditions, EGRESS_VERIFIED);
  if (verdict.status === 'False' && previous?.reason !== verdict.reason) {
    event(s, 'Warning', verdict.reason, verdict.message);
  }
  condition(s, EGRESS_VERIFIED, verdict.status, verdict.reason, verdict.message);
}
