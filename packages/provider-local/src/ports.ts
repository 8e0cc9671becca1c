/** FNV-1a, 32 bits: a stable spread of names over the port range. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * The order in which ports are tried for `name` (pure): `preferred` first when it lies inside
 * the range, then every port of the range starting at the name's hash and wrapping around. The
 * same name always starts at the same port, so a re-created instance usually gets its old port.
 */
export function portCandidates(
  name: string,
  range: { min: number; max: number },
  preferred?: number,
): number[] {
  const size = range.max - range.min + 1;
  const start = fnv1a(name) % size;
  const out: number[] = [];
  if (preferred !== undefined && preferred >= range.min && preferred <= range.max) out.push(preferred);
  for (let i = 0; i < size; i++) {
    const p = range.min + ((start + i) % size);
    if (p !== preferred) out.push(p);
  }
  return out;
}
