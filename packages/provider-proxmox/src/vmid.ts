/** 32-bit FNV-1a over the UTF-8 bytes of `s`. */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export const VMID_PROBES = 32;

/**
 * The VMID for `uid` on probe `attempt`: a hash picks the start inside the range, and probing walks
 * forward (wrapping), so the same UID always tries the same sequence and a retried Create finds
 * its own clone again.
 */
export function vmidFor(uid: string, attempt: number, range: { min: number; max: number }): number {
  const span = range.max - range.min + 1;
  return range.min + (((fnv1a32(uid) % span) + attempt) % span);
}
