import { describe, expect, it } from 'vitest';
import { CooldownMarkWriter, type MarkToWrite, marksBehind } from './cooldown-mark-writer.js';

const mark = (member: string, until: number): MarkToWrite => ({ member, until, reason: 'status-429', at: 0 });

/** A write that waits until the test lets it finish, and what it was asked to write. */
function heldWrites() {
  const started: string[] = [];
  const finish: (() => void)[] = [];
  const write = (m: MarkToWrite) => {
    started.push(`${m.member}@${m.until}`);
    return new Promise<void>((r) => finish.push(r));
  };
  return { started, finish, write };
}

describe('CooldownMarkWriter', () => {
  it('writes one mark at a time per member, and after a burst only the latest end', async () => {
    const w = heldWrites();
    const writer = new CooldownMarkWriter(w.write, () => {});
    writer.record(mark('a', 100));
    writer.record(mark('a', 300));
    writer.record(mark('a', 200));
    writer.record(mark('b', 150));
    // The first write of each member runs; for a, the later ends wait behind it, merged.
    expect(w.started).toEqual(['a@100', 'b@150']);
    w.finish.shift()?.();
    w.finish.shift()?.();
    await new Promise((r) => setImmediate(r));
    expect(w.started).toEqual(['a@100', 'b@150', 'a@300']);
    w.finish.shift()?.();
    await writer.idle();
    expect(w.started).toHaveLength(3);
  });

  it('reports a failed write and goes on with the next', async () => {
    const failed: string[] = [];
    let calls = 0;
    const writer = new CooldownMarkWriter(
      async () => {
        if (calls++ === 0) throw new Error('API down');
      },
      (m, err) => failed.push(`${m.member}@${m.until}: ${(err as Error).message}`),
    );
    writer.record(mark('a', 100));
    writer.record(mark('a', 200));
    await writer.idle();
    expect(failed).toEqual(['a@100: API down']);
    expect(calls).toBe(2);
  });
});

describe('marksBehind', () => {
  it('names the cooldowns whose mark is missing or ends earlier', () => {
    const inForce = [
      { member: 'a', until: 100, reason: 'status-429' },
      { member: 'b', until: 200, reason: 'status-429' },
      { member: 'c', until: 300, reason: 'connect-failed' },
    ];
    const recorded = [
      { member: 'a', until: 100, reason: 'status-429' },
      { member: 'b', until: 150, reason: 'status-429' },
      { member: 'z', until: 900, reason: 'status-403' },
    ];
    expect(marksBehind(inForce, recorded).map((c) => c.member)).toEqual(['b', 'c']);
  });
});
