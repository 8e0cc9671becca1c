import {
  type CallOptions,
  type CreateRequest,
  type Instance,
  transientError,
} from '@egress-proxies/contract';
import { parseVolumeId } from '../../src/reference/id.js';
import { type OpContext, ReferenceProvider } from '../../src/reference/index.js';
import { KeyedLock } from '../../src/reference/keyed-lock.js';
import { sub } from './adoption-mutants.js';
import type { Mutant } from './mutants.js';

class KeepsPartsOfAGoneMachine extends ReferenceProvider {
  protected override async remove(ctx: OpContext, name: string): Promise<void> {
    if (await this.findExisting(ctx, name)) await super.remove(ctx, name);
  }
}

class CreateOutsideTheLock extends ReferenceProvider {
  override async create(req: CreateRequest, opts?: CallOptions): Promise<string> {
    const log = this.logger(opts);
    try {
      const p = this.placement(req);
      return await this.ensure({ log, signal: opts?.signal, host: p.host }, req, p);
    } catch (err) {
      throw this.fail(log, 'create', err, { name: req.name });
    }
  }
}

class QueueIgnoresAbort extends ReferenceProvider {
  readonly #queue = new KeyedLock();
  override create(req: CreateRequest, opts?: CallOptions): Promise<string> {
    return this.#queue.run(req.name, () => super.create(req, opts));
  }
}

class OneCreateAtATime extends ReferenceProvider {
  readonly #queue = new KeyedLock();
  override create(req: CreateRequest, opts?: CallOptions): Promise<string> {
    return this.#queue.run('every-name', () => super.create(req, opts), opts?.signal);
  }
}

class AbortPoisonsTheConnection extends ReferenceProvider {
  #poisoned = false;
  override create(req: CreateRequest, opts?: CallOptions): Promise<string> {
    opts?.signal?.addEventListener('abort', () => {
      this.#poisoned = true;
    });
    return super.create(req, opts);
  }
  protected override assertOpen(signal?: AbortSignal): void {
    if (this.#poisoned) throw transientError('the shared connection was torn down by an abort');
    super.assertOpen(signal);
  }
}

class ListsOnlyLiveMachines extends ReferenceProvider {
  override async listByTag(opts?: CallOptions): Promise<Instance[]> {
    return (await super.listByTag(opts)).filter((i) => i.state !== 'Stopped');
  }
}

class AllDownListsNothing extends ReferenceProvider {
  override async listByTag(opts?: CallOptions): Promise<Instance[]> {
    try {
      return await super.listByTag(opts);
    } catch {
      return [];
    }
  }
}

class DeletesPartsOfALiveInstance extends ReferenceProvider {
  override async deleteSecondary(id: string, opts?: CallOptions): Promise<void> {
    const { host, volume } = parseVolumeId(id);
    await this.backend.deleteVolume(host, volume, {
      token: this.config.token.reveal(),
      signal: opts?.signal,
    });
  }
}

class ListsOnlyVolumes extends ReferenceProvider {
  override async listSecondary(opts?: CallOptions) {
    return (await super.listSecondary(opts)).filter((r) => r.kind !== 'seed');
  }
}

/** Mutants of the delete, list and concurrency rules the kit's second version checks. */
export const LIFECYCLE_MUTANTS: readonly Mutant[] = [
  {
    name: 'keeps the parts of a machine already gone',
    breaks: 'delete removes the secondary parts even when the machine is gone',
    caughtBy: ['DELETE-09'],
    make: sub(KeepsPartsOfAGoneMachine),
  },
  {
    name: 'creates outside the per-name lock',
    breaks: 'a delete racing a create of the same name is serialised',
    caughtBy: ['DELETE-10'],
    make: sub(CreateOutsideTheLock),
  },
  {
    name: 'a queued call ignores its abort',
    breaks: 'a call queued behind another of the same name rejects promptly when aborted',
    caughtBy: ['OPS-10'],
    make: sub(QueueIgnoresAbort),
  },
  {
    name: 'one create at a time',
    breaks: 'calls for different names run in parallel',
    caughtBy: ['OPS-11'],
    make: sub(OneCreateAtATime),
  },
  {
    name: 'an abort poisons the shared connection',
    breaks: 'an abort never breaks another call or a later one',
    caughtBy: ['OPS-12'],
    make: sub(AbortPoisonsTheConnection),
  },
  {
    name: 'lists only live machines',
    breaks: 'every marked instance in every state is listed',
    caughtBy: ['LIST-07'],
    make: sub(ListsOnlyLiveMachines),
  },
  {
    name: 'an unreadable backend lists nothing',
    breaks: 'all targets down is a rejection, never an empty list',
    caughtBy: ['LIST-08'],
    make: sub(AllDownListsNothing),
  },
  {
    name: 'deleteSecondary removes parts of a live instance',
    breaks: 'deleteSecondary never removes the parts of an instance that exists again',
    caughtBy: ['LIST-09'],
    make: sub(DeletesPartsOfALiveInstance),
  },
  {
    name: 'listSecondary misses seed images',
    breaks: 'listSecondary lists every part left without its machine',
    caughtBy: ['LIST-10'],
    make: sub(ListsOnlyVolumes),
  },
];
