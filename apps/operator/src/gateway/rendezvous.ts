/**
 * Rendezvous (highest-random-weight) hashing: every gateway replica that sees the same Ready
 * members picks the same one for a session, without talking to the others, and a member leaving
 * moves only the sessions that were on it.
 */

// FNV-1a over UTF-16 code units: stable across processes and Node versions (no seeded hash).
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

// murmur3's finalizer: mixes the two hashes so every bit of each moves the score.
function mix(a: number, b: number): number {
  let h = Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h ^ a, 0x85ebca6b);
  h ^= h >>> 15;
  return h >>> 0;
}

// Member names hash once, not once per session: a new session then costs one mix per member.
const names = new Map<string, number>();
const nameHash = (name: string): number => {
  let h = names.get(name);
  if (h === undefined) {
    if (names.size > 100_000) names.clear();
    h = fnv1a(name);
    names.set(name, h);
  }
  return h;
};

/** The hash of a member's name that rendezvousPick mixes with the session's (for callers that keep it). */
export const memberHash = nameHash;

/**
 * The member with the highest score for `session`; ties go to the smaller name, so order never
 * matters. `hashes[i]`, when given, is memberHash(members[i].name), kept by the caller.
 */
export function rendezvousPick<T extends { name: string }>(
  session: string,
  members: readonly T[],
  hashes?: readonly number[],
): T | undefined {
  const s = fnv1a(session);
  let best: T | undefined;
  let bestScore = -1;
  for (let i = 0; i < members.length; i++) {
    const m = members[i] as T;
    const score = mix(hashes?.[i] ?? nameHash(m.name), s);
    if (score > bestScore || (score === bestScore && best !== undefined && m.name < best.name)) {
      best = m;
      bestScore = score;
    }
  }
  return best;
}
