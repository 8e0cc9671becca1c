import type { CooldownMark } from './member-table.js';

/** A mark to write: the member's cooldown and when the ban that set its end was seen. */
export interface MarkToWrite extends CooldownMark {
  at: number;
}

/**
 * Writes a gateway's cooldowns as marks, one write at a time per member, the latest end last. A
 * burst of bans on one member (every request in flight when the first answered 429) costs the
 * write running now and one for the latest end seen meanwhile, never a pile of racing writes
 * whose order the API server would decide.
 */
export class CooldownMarkWriter {
  readonly #write: (mark: MarkToWrite) => Promise<unknown>;
  readonly #onError: (mark: MarkToWrite, err: unknown) => void;
  readonly #next = new Map<string, MarkToWrite>();
  readonly #running = new Map<string, Promise<void>>();

  constructor(
    write: (mark: MarkToWrite) => Promise<unknown>,
    onError: (mark: MarkToWrite, err: unknown) => void,
  ) {
    this.#write = write;
    this.#onError = onError;
  }

  /** Queues `mark` behind the write running for its member; a queued mark with a later end stays. */
  record(mark: MarkToWrite): void {
    const queued = this.#next.get(mark.member);
    if (queued && queued.until >= mark.until) return;
    this.#next.set(mark.member, mark);
    if (!this.#running.has(mark.member)) this.#running.set(mark.member, this.#drain(mark.member));
  }

  /** Resolves once nothing is queued or being written. */
  async idle(): Promise<void> {
    while (this.#running.size) await Promise.all(this.#running.values());
  }

  async #drain(member: string): Promise<void> {
    for (let m = this.#next.get(member); m; m = this.#next.get(member)) {
      this.#next.delete(member);
      try {
        await this.#write(m);
      } catch (err) {
        this.#onError(m, err);
      }
    }
    this.#running.delete(member);
  }
}

/**
 * The cooldowns in force whose mark is missing or ends earlier (a write that failed, a mark
 * someone removed): what must be written again so the record matches the cooldown.
 */
export function marksBehind(
  inForce: readonly CooldownMark[],
  recorded: readonly CooldownMark[],
): CooldownMark[] {
  const ends = new Map(recorded.map((m) => [m.member, m.until]));
  return inForce.filter((c) => (ends.get(c.member) ?? Number.NEGATIVE_INFINITY) < c.until);
}
