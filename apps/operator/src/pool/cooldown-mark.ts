import { GROUP } from '../api/group.js';

/**
 * Set on a member Proxy by a gateway that cooled the member down: `<at> <reason> <until>` (ISO
 * times). Every gateway replica reads it back and excludes the member until `<until>`, and the pool
 * controller shows it in the pool's status and acts on it for `rotation.onBan`.
 */
export const COOLED_DOWN_ANNOTATION = `${GROUP}/cooled-down`;

export interface CooldownMarkValue {
  at: number;
  reason: string;
  until: number;
}

export function formatCooldownMark(m: CooldownMarkValue): string {
  return `${new Date(m.at).toISOString()} ${m.reason} ${new Date(m.until).toISOString()}`;
}

/**
 * Reads a mark; a mark without its end (written before the end was recorded) lasts
 * `cooldownMs` from `<at>`. Undefined when the value is not a mark.
 */
export function parseCooldownMark(
  value: string | undefined,
  cooldownMs: number,
): CooldownMarkValue | undefined {
  if (!value) return undefined;
  const [atText = '', reason = 'unknown', untilText] = value.trim().split(/\s+/);
  const at = Date.parse(atText);
  if (!Number.isFinite(at)) return undefined;
  const until = untilText === undefined ? at + cooldownMs : Date.parse(untilText);
  return Number.isFinite(until) ? { at, reason, until } : undefined;
}
