import {
  type CreateRequest,
  ErrorCode,
  type LogFields,
  type Logger,
  ProviderError,
} from '@egress-proxies/contract';
import {
  MARK_NAMESPACE,
  type MarkReading,
  type OpContext,
  ReferenceProvider,
} from '../../src/reference/index.js';
import { sub } from './adoption-mutants.js';
import type { Mutant } from './mutants.js';

type Placement = Parameters<ReferenceProvider['ensure']>[2];
type CallArgs = [ctx: OpContext, step: string, fn: Parameters<ReferenceProvider['call']>[2], name?: string];

class FailureLinesWithoutTheName extends ReferenceProvider {
  // The outcome line of a failed call names the ID only, as a logger built before the ID is parsed would.
  protected override fail(log: Logger, operation: string, err: unknown, fields: LogFields): ProviderError {
    const { name: _, ...rest } = fields;
    return super.fail(log, operation, err, rest);
  }
}

class CallLinesWithoutTheInstance extends ReferenceProvider {
  // Names the instance only on the calls that touch the machine itself (not pool, image or volumes).
  protected override call<T>(...[ctx, step, fn, name]: CallArgs): Promise<T> {
    const named = ['lookup', 'state', 'start', 'stop', 'define', 'undefine', 'address'].includes(step);
    return super.call(ctx, step, fn as never, named ? name : undefined);
  }
}

class CallLinesWithTheErrorClassOnly extends ReferenceProvider {
  // Logs a failed backend call with the error's class name, not what the backend answered.
  protected override codeOf(err: unknown): string {
    return err instanceof Error ? err.name : 'unknown';
  }
}

class DurationsAsTimestamps extends ReferenceProvider {
  // Logs each backend call with the clock reading at its end instead of how long it took.
  protected override call<T>(...[ctx, step, fn, name]: CallArgs): Promise<T> {
    const log = {
      ...ctx.log,
      log: (level: Parameters<Logger['log']>[0], msg: string, fields?: LogFields) =>
        ctx.log.log(level, msg, fields && 'ms' in fields ? { ...fields, ms: Date.now() } : fields),
    } as Logger;
    return super.call({ ...ctx, log }, step, fn as never, name);
  }
}

class BackendErrorsWithoutTheirCode extends ReferenceProvider {
  protected override classify(operation: string, err: unknown): ProviderError {
    const e = super.classify(operation, err);
    if (e.code !== ErrorCode.BackendError) return e;
    return new ProviderError({
      kind: e.kind,
      code: e.code,
      message: e.message,
      provider: e.provider,
      operation,
      details: {},
    });
  }
}

class LeavesTargetsOutQuietly extends ReferenceProvider {
  // Leaves an unreachable host out of the listing without saying which.
  protected override async listHost(ctx: OpContext) {
    const quiet = { ...ctx, log: { ...ctx.log, log: () => {} } as Logger };
    return super.listHost(quiet);
  }
}

class ZoneAlwaysRequired extends ReferenceProvider {
  protected override placement(req: CreateRequest) {
    if (req.placement?.zone === undefined)
      return super.placement({ ...req, placement: { ...req.placement, zone: '' } });
    return super.placement(req);
  }
}

class MadeUpCloudInit extends ReferenceProvider {
  // Boots a request without user-data on a default of its own.
  protected override ensure(ctx: OpContext, req: CreateRequest, p: Placement) {
    return super.ensure(ctx, { ...req, cloudInit: req.cloudInit ?? '#cloud-config\n{}\n' }, p);
  }
}

class AnyNamespaceIsOurs extends ReferenceProvider {
  // Reads any <instance> element as its own, whoever wrote it.
  protected override readMark(metadata: string | undefined): MarkReading {
    return super.readMark(metadata?.replace(/xmlns="[^"]*"/, `xmlns="${MARK_NAMESPACE}"`));
  }
}

class MarkLayoutExact extends ReferenceProvider {
  // Matches the mark only in the layout it writes itself.
  protected override readMark(metadata: string | undefined): MarkReading {
    if (metadata !== undefined && /^\s|\n|\s\/>/.test(metadata)) return { kind: 'unreadable' };
    return super.readMark(metadata);
  }
}

/** Mutants of the rules the kit's fourth version checks: log fields, request variants, mark variants. */
export const V4_MUTANTS: readonly Mutant[] = [
  {
    name: 'failure lines without the instance name',
    breaks: 'lines about an instance carry provider and name (2.9)',
    caughtBy: ['OPS-18'],
    make: sub(FailureLinesWithoutTheName),
  },
  {
    name: "backend-call lines name the instance only on the machine's own calls",
    breaks: 'lines about an instance carry provider and name (2.9)',
    caughtBy: ['OPS-18'],
    make: sub(CallLinesWithoutTheInstance),
  },
  {
    name: "a failed backend call logged with the error's class, not the backend's code",
    breaks: "a failed backend call's line carries the error and its backend code (2.9)",
    caughtBy: ['OPS-19'],
    make: sub(CallLinesWithTheErrorClassOnly),
  },
  {
    name: "a backend call's duration logged as a clock reading",
    breaks: "a backend call's line carries its duration (2.9)",
    caughtBy: ['OPS-17'],
    make: sub(DurationsAsTimestamps),
  },
  {
    name: "a BACKEND_ERROR without the backend's code in its details",
    breaks: "a BACKEND_ERROR's details carry the backend's own code (2.5)",
    caughtBy: ['OPS-19'],
    make: sub(BackendErrorsWithoutTheirCode),
  },
  {
    name: 'a target left out of a listing without a line naming it',
    breaks: 'a line about a target carries it (2.9)',
    caughtBy: ['LIST-04'],
    harness: { listPartial: 'omit-unreachable' },
    make: sub(LeavesTargetsOutQuietly),
  },
  {
    name: 'a one-host config still requires the zone',
    breaks: 'a placement field the provider defaults may be left out (2.1, config.requiredPlacement)',
    caughtBy: ['CREATE-22'],
    harness: { hosts: ['solo'] },
    make: sub(ZoneAlwaysRequired),
  },
  {
    name: 'cloud-init made up for a request without one',
    breaks: "the cloud-init the backend receives is the request's (2.1)",
    caughtBy: ['CREATE-23'],
    make: sub(MadeUpCloudInit),
  },
  {
    name: "another tool's look-alike mark read as ours",
    breaks: 'only our own mark makes an instance ours (2.1, gcMark)',
    caughtBy: ['GET-16'],
    make: sub(AnyNamespaceIsOurs),
  },
  {
    name: 'a reformatted mark read as unreadable',
    breaks: 'our mark is ours in any layout (2.1, gcMark)',
    caughtBy: ['GET-17'],
    make: sub(MarkLayoutExact),
  },
];
