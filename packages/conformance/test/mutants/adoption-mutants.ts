import type { CreateRequest } from '@egress-proxies/contract';
import {
  formatMark,
  type MarkReading,
  type OpContext,
  type Ownership,
  ReferenceChecker,
  ReferenceProvider,
  resolveReferenceConfig,
} from '../../src/reference/index.js';
import { isUp } from '../../src/reference/state.js';
import type { Mutant } from './mutants.js';

type Args = Parameters<Mutant['make']>[0];
type Placement = Parameters<ReferenceProvider['ensure']>[2];

export function sub(Cls: new (a: Args) => ReferenceProvider) {
  return (args: Args) => {
    const provider = new Cls(args);
    const config = resolveReferenceConfig(args.name, args.config);
    return {
      provider,
      checker: new ReferenceChecker(args.name, config, args.backend, () => provider.closed),
    };
  };
}

class GuardsOnlyRunning extends ReferenceProvider {
  // Reads the owner only off a running domain; any other state looks like an old, UID-less mark.
  protected override async findExisting(ctx: OpContext, name: string) {
    const d = await super.findExisting(ctx, name);
    return d && !isUp(d.state) ? { ...d, metadata: formatMark({ uid: '', createdAt: new Date() }) } : d;
  }
}

class AdoptsUnreadable extends ReferenceProvider {
  protected override ownership(reading: MarkReading, uid: string): Ownership {
    return reading.kind === 'unreadable' ? 'adopt' : super.ownership(reading, uid);
  }
}

class RewritesCreatedAt extends ReferenceProvider {
  // "Refreshes" the mark on every successful create, adopt included.
  protected override async ensure(ctx: OpContext, req: CreateRequest, p: Placement) {
    const id = await super.ensure(ctx, req, p);
    this.backend.setMetadata(
      p.host,
      req.name,
      formatMark({
        uid: req.uid,
        createdAt: new Date(),
        ...(req.installation ? { installation: req.installation } : {}),
      }),
    );
    return id;
  }
}

class TrimsCloudInit extends ReferenceProvider {
  protected override async ensure(ctx: OpContext, req: CreateRequest, p: Placement) {
    return super.ensure(ctx, { ...req, cloudInit: req.cloudInit?.replaceAll('\r\n', '\n').trimEnd() }, p);
  }
}

/** Mutants of the create rules the kit's second version checks. */
export const ADOPTION_MUTANTS: readonly Mutant[] = [
  {
    name: 'guards ownership only on running instances',
    breaks: 'the adoption guard holds in every backend state',
    caughtBy: ['CREATE-14'],
    make: sub(GuardsOnlyRunning),
  },
  {
    name: 'adopts an unreadable mark',
    breaks: 'a present but unreadable mark is Permanent, the instance untouched',
    caughtBy: ['CREATE-15'],
    make: sub(AdoptsUnreadable),
  },
  {
    name: 'rewrites createdAt',
    breaks: 'createdAt is written once',
    caughtBy: ['CREATE-16'],
    make: sub(RewritesCreatedAt),
  },
  {
    name: 'normalises cloud-init',
    breaks: "the backend receives the request's cloud-init byte for byte",
    caughtBy: ['CREATE-17'],
    make: sub(TrimsCloudInit),
  },
];
