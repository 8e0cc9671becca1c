import type { CallOptions, CreateRequest, Instance } from '@egress-proxies/contract';
import { raceAbort } from '@egress-proxies/provider-utils';
import { ReferenceProvider } from '../../src/reference/index.js';
import { KeyedLock } from '../../src/reference/keyed-lock.js';
import { sub } from './adoption-mutants.js';
import type { Mutant } from './mutants.js';

/**
 * The keyed lock with its cleanup unconditional: a holder that leaves forgets the key even when
 * another call has queued behind it, so a call arriving while that second one holds the lock
 * finds the name free.
 */
class ForgetfulLock extends KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  override async run<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release: () => void = () => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#tails.set(
      key,
      previous.then(() => mine),
    );
    try {
      await raceAbort(previous, signal);
      return await fn();
    } finally {
      release();
      this.#tails.delete(key);
    }
  }
}

class LockForgetsQueuedCalls extends ReferenceProvider {
  protected override readonly locks: KeyedLock = new ForgetfulLock();
}

class ListsOnlyItsOwnInstallations extends ReferenceProvider {
  // Remembers the installations it created for and leaves every other installation's machines out
  // (those without any, from the Go operator, it keeps).
  readonly #mine = new Set<string>();
  override create(req: CreateRequest, opts?: CallOptions): Promise<string> {
    if (req.installation) this.#mine.add(req.installation);
    return super.create(req, opts);
  }
  override async listByTag(opts?: CallOptions): Promise<Instance[]> {
    const all = await super.listByTag(opts);
    if (this.#mine.size === 0) return all;
    return all.filter((i) => i.installation === undefined || this.#mine.has(i.installation));
  }
}

/** Mutants of the rules the kit's fifth version checks: the lock's third caller, other installations. */
export const V5_MUTANTS: readonly Mutant[] = [
  {
    name: 'the per-name lock forgets a queued call once its first holder leaves',
    breaks: 'create and delete of one name are serialised (2.7)',
    caughtBy: ['OPS-20'],
    make: sub(LockForgetsQueuedCalls),
  },
  {
    name: 'listByTag leaves out the machines of installations it did not create for',
    breaks: 'listByTag returns every marked instance, whatever its installation (2.4)',
    caughtBy: ['LIST-11'],
    make: sub(ListsOnlyItsOwnInstallations),
  },
];
