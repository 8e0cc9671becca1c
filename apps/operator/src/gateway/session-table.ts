/**
 * Which member a sticky session goes to: a Maglev lookup table (Eisenbud et al., NSDI 2016) built
 * from the member names alone. Every gateway replica that sees the same members builds the same
 * table, so they agree on a session's member without talking to each other; a lookup is one hash
 * and one array read whatever the pool size; each member owns M/N slots (±1); a member leaving or
 * joining moves its own share of the sessions and well under 1% of the others'.
 */

// FNV-1a over UTF-16 code units: stable across processes and Node versions (no seeded hash).
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

// murmur3's finalizer, so every input bit moves every output bit before the modulo.
function fmix(x: number): number {
  let h = x ^ (x >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A session id's position, the same in every process. */
export const sessionHash = (session: string): number => fmix(fnv1a(session));

const isPrime = (n: number) => {
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return n > 1;
};

/**
 * The table size: prime (so each member's skip walks every slot) and at least 10 slots per member;
 * 65,537 up to 6,553 members, so growing a pool to that size never resizes (a resize moves most
 * sessions).
 */
export function tableSize(members: number): number {
  let m = Math.max(65_537, members * 10);
  while (!isPrime(m)) m++;
  return m;
}

/** The lookup table over `names` (in any order; the table depends only on the set). */
export class SessionTable {
  /** The member names, sorted: `slots` holds indexes into this. */
  readonly names: readonly string[];
  readonly #slots: Int32Array;

  constructor(names: Iterable<string>) {
    this.names = [...new Set(names)].sort();
    const n = this.names.length;
    const m = tableSize(n);
    const slots = new Int32Array(n ? m : 0).fill(-1);
    // Each member walks its own permutation of the slots (offset, offset+skip, ...) and takes the
    // next free one in turn, round-robin over the members, until every slot is owned.
    const next = new Uint32Array(n);
    const skip = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const h = fnv1a(this.names[i] as string);
      next[i] = fmix(h ^ 0x5bd1e995) % m;
      skip[i] = (fmix(h ^ 0x27d4eb2f) % (m - 1)) + 1;
    }
    for (let filled = 0; filled < slots.length; ) {
      for (let i = 0; i < n && filled < slots.length; i++) {
        const step = skip[i] as number;
        let c = next[i] as number;
        while ((slots[c] as number) >= 0) c = c + step >= m ? c + step - m : c + step;
        slots[c] = i;
        next[i] = c + step >= m ? c + step - m : c + step;
        filled++;
      }
    }
    this.#slots = slots;
  }

  get size(): number {
    return this.#slots.length;
  }

  /**
   * The index (into `names`) of the member for `hash`: the slot's owner, or when `usable` refuses
   * it (cooled down, failed this connection) the owner of the next slot it accepts. Slots'
   * owners are spread, so a refused member's sessions spread over the rest; -1 when none is usable.
   */
  lookup(hash: number, usable?: (index: number) => boolean): number {
    const m = this.#slots.length;
    if (m === 0) return -1;
    let slot = hash % m;
    if (!usable) return this.#slots[slot] as number;
    for (let i = 0; i < m; i++) {
      const owner = this.#slots[slot] as number;
      if (usable(owner)) return owner;
      slot = slot + 1 === m ? 0 : slot + 1;
    }
    return -1;
  }
}
