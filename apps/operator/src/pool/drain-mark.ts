import { GROUP } from '../api/group.js';
import type { DrainingMember } from './member-drain.js';

/**
 * Set on a member Proxy by the pool controller when the member was chosen to go but a gateway
 * replica still reports it busy: `<since> <reason>` (an ISO time, then `scale-down` or `replaced`).
 * Every gateway replica leaves a marked member out of its member set, so it gets no new request
 * and its sessions move, while the tunnels already open through it go on; the controller deletes
 * it once the replicas report it idle or the drain timeout passes.
 */
export const DRAINING_ANNOTATION = `${GROUP}/draining`;

export type DrainMark = Omit<DrainingMember, 'name'>;

export function formatDrainMark(m: DrainMark): string {
  return `${new Date(m.since).toISOString()} ${m.reason}`;
}

/**
 * Reads a mark; undefined when the value is not one. Gateways and controller read it alike, so a
 * member one of them takes for draining the other does too.
 */
export function parseDrainMark(value: string | undefined): DrainMark | undefined {
  if (!value) return undefined;
  const [sinceText = '', reason] = value.trim().split(/\s+/);
  const since = Date.parse(sinceText);
  if (!Number.isFinite(since)) return undefined;
  return { since, reason: reason === 'replaced' ? 'replaced' : 'scale-down' };
}
