/**
 * Rendezvous (highest-random-weight) hashing: every gateway replica that sees the same Ready
 * members picks the same one for a session, without talking to the others, and a member leaving
 * moves only the sessions that were on it.
 */

// FNV-1a over UTF-16 code units, then murmur3's finalizer: cheap, stable across processes and
// Node versions (no seeded hash), and well mixed enough that members share sessions evenly.
function score(member: string, session: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < member.length; i++) h = Math.imul(h ^ member.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ 0, 0x01000193);
  for (let i = 0; i < session.length; i++) h = Math.imul(h ^ session.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The member with the highest score for `session`; ties go to the smaller name, so order never matters. */
export function rendezvousPick<T extends { name: string }>(
  session: string,
  members: readonly T[],
): T | undefined {
  let best: T | undefined;
  let bestScore = -1;
  for (const m of members) {
    const s = score(m.name, session);
    if (s > bestScore || (s === bestScore && best !== undefined && m.name < best.name)) {
      best = m;
      bestScore = s;
    }
  }
  return best;
}
