import { randomUUID } from 'node:crypto';
import {
  type CallOptions,
  type CheckResult,
  type CreateRequest,
  type Instance,
  type LogFields,
  notFoundError,
  type Provider,
  type ProviderError,
} from '@egress-proxies/contract';
import type { ReferenceHarnessOptions } from '../../src/reference/harness.js';
import {
  classifyBackendError,
  type Mark,
  type MarkReading,
  type OpContext,
  type Ownership,
  type ReferenceBackend,
  ReferenceBackendError,
  ReferenceChecker,
  type ReferenceConfig,
  ReferenceProvider,
  resolveReferenceConfig,
} from '../../src/reference/index.js';

/**
 * Deliberately broken variants of the reference provider. Each breaks one contract rule the way
 * real providers have broken it, and names the conformance cases that must catch it.
 */
export interface Mutant {
  name: string;
  /** The rule it breaks. */
  breaks: string;
  /** Case ids that must fail against it. */
  caughtBy: readonly string[];
  /** The harness it runs in, when not the default three-host one. */
  harness?: Pick<ReferenceHarnessOptions, 'hosts' | 'listPartial' | 'egressPlan'>;
  make(args: { name: string; config: ReferenceConfig; backend: ReferenceBackend }): {
    provider: Provider;
    checker?: ReferenceChecker;
  };
}

type Args = { name: string; config: ReferenceConfig; backend: ReferenceBackend };
type Placed = Parameters<ReferenceProvider['createDetail']>[1];
const checkerFor = ({ name, config }: Args, backend: ReferenceBackend) =>
  new ReferenceChecker(name, resolveReferenceConfig(name, config), backend, () => false);

/** Builds a mutant from a ReferenceProvider subclass. */
function sub(
  Cls: new (o: { name: string; config: ReferenceConfig; backend: ReferenceBackend }) => ReferenceProvider,
) {
  return (args: Args) => {
    const provider = new Cls(args);
    return { provider, checker: checkerFor(args, args.backend) };
  };
}

class NonIdempotentCreate extends ReferenceProvider {
  // Never looks before it creates: a second create runs into the existing domain.
  readonly #creating = new WeakSet<OpContext>();
  protected override ensure(ctx: OpContext, req: CreateRequest, p: Placed) {
    this.#creating.add(ctx);
    return super.ensure(ctx, req, p);
  }
  protected override async findExisting(ctx: OpContext, name: string) {
    return this.#creating.has(ctx) ? undefined : super.findExisting(ctx, name);
  }
}

class LeaksOnFailedStep extends ReferenceProvider {
  // A fresh overlay name per attempt: a retry after a failed step leaves the first overlay behind.
  protected override overlayVolumeName(name: string): string {
    return `${name}-overlay-${randomUUID().slice(0, 8)}.qcow2`;
  }
}

class NotFoundDuringCreate extends ReferenceProvider {
  protected override classify(operation: string, err: unknown): ProviderError {
    if (
      operation === 'create' &&
      ReferenceBackendError.isInstance(err) &&
      /^NO_(DOMAIN|VOLUME)$/.test(err.code)
    ) {
      return notFoundError(err.message, { provider: this.name, operation });
    }
    return super.classify(operation, err);
  }
}

class LogsCloudInit extends ReferenceProvider {
  protected override createDetail(
    req: CreateRequest,
    p: Parameters<ReferenceProvider['createDetail']>[1],
  ): LogFields {
    return { ...super.createDetail(req, p), userData: req.cloudInit };
  }
}

class WrongProviderName extends ReferenceProvider {
  protected override classify(operation: string, err: unknown): ProviderError {
    return classifyBackendError(this.type, operation, err);
  }
}

class TreatsUnmarkedAsOurs extends ReferenceProvider {
  protected override ownership(reading: MarkReading, uid: string): Ownership {
    return reading.kind === 'unmarked' ? 'adopt' : super.ownership(reading, uid);
  }
  protected override ourMark(reading: MarkReading): Mark | undefined {
    return reading.kind === 'unmarked' ? { uid: '' } : super.ourMark(reading);
  }
}

class AdoptsForeignUid extends ReferenceProvider {
  protected override ownership(reading: MarkReading, uid: string): Ownership {
    const o = super.ownership(reading, uid);
    return o === 'foreign' ? 'adopt' : o;
  }
}

class BusyIsNotFound extends ReferenceProvider {
  protected override classify(operation: string, err: unknown): ProviderError {
    if (
      operation === 'get' &&
      ReferenceBackendError.isInstance(err) &&
      (err.code === 'BUSY' || err.code === 'UNREACHABLE')
    ) {
      return notFoundError(err.message, { provider: this.name, operation });
    }
    return super.classify(operation, err);
  }
}

class ReturnsBeforeRunning extends ReferenceProvider {
  protected override async waitRunning(): Promise<void> {}
}

class DeletesWithoutStopping extends ReferenceProvider {
  protected override async stopBeforeRemove(): Promise<void> {}
}

class AddressFailureIsError extends ReferenceProvider {
  protected override async address(ctx: OpContext, name: string): Promise<string | undefined> {
    return this.call(ctx, 'address', (a) => this.backend.domainAddress(ctx.host, name, a), name);
  }
}

class IgnoresListPolicy extends ReferenceProvider {
  // Declares fail-whole but leaves an unreachable host out.
  protected override async listHost(ctx: OpContext) {
    try {
      return await this.call(ctx, 'list', (a) => this.backend.listDomains(ctx.host, a));
    } catch {
      return undefined;
    }
  }
}

class PrintsToConsole extends ReferenceProvider {
  override async create(req: CreateRequest, opts?: CallOptions): Promise<string> {
    const id = await super.create(req, opts);
    console.log(`created ${id}`);
    return id;
  }
}

class TokenInErrors extends ReferenceProvider {
  protected override classify(operation: string, err: unknown): ProviderError {
    const e = super.classify(operation, err);
    if (ReferenceBackendError.isInstance(err) && err.code === 'UNREACHABLE') {
      return Object.assign(e, { message: `${e.message} (token ${this.config.token.reveal()})` });
    }
    return e;
  }
}

class DialsOnConstruction extends ReferenceProvider {
  constructor(args: Args) {
    super(args);
    // "Warm up" the connection: the operator cannot start while this backend is down.
    void this.backend
      .probe(this.config.hosts[0]!.name, { token: this.config.token.reveal() })
      .catch(() => {});
  }
}

class UsableAfterClose extends ReferenceProvider {
  override async close(): Promise<void> {}
}

class CreatedAtFromTheClock extends ReferenceProvider {
  // Reports when it was asked instead of what the mark says.
  override async get(id: string, opts?: CallOptions): Promise<Instance> {
    return { ...(await super.get(id, opts)), createdAt: new Date() };
  }
}

class SequentialChecker extends ReferenceChecker {
  override async check(opts?: CallOptions): Promise<CheckResult[]> {
    const out: CheckResult[] = [];
    for (const h of this.config.hosts) out.push(await this.checkHost(h, opts?.signal, this.logger(opts)));
    return out;
  }
}

/** Drops every caller's signal: the provider cannot be cancelled. */
class IgnoresAbort implements Provider {
  readonly name: string;
  readonly type: string;
  readonly profile: ReferenceProvider['profile'];
  constructor(readonly inner: ReferenceProvider) {
    this.name = inner.name;
    this.type = inner.type;
    this.profile = inner.profile;
  }
  #strip(opts?: CallOptions): CallOptions {
    return opts?.logger ? { logger: opts.logger } : {};
  }
  create(req: CreateRequest, opts?: CallOptions): Promise<string> {
    return this.inner.create(req, this.#strip(opts));
  }
  get(id: string, opts?: CallOptions): Promise<Instance> {
    return this.inner.get(id, this.#strip(opts));
  }
  delete(id: string, opts?: CallOptions): Promise<void> {
    return this.inner.delete(id, this.#strip(opts));
  }
  listByTag(opts?: CallOptions): Promise<Instance[]> {
    return this.inner.listByTag(this.#strip(opts));
  }
}

export const MUTANTS: readonly Mutant[] = [
  {
    name: 'non-idempotent create',
    breaks: 'create is idempotent',
    caughtBy: ['CREATE-01', 'CREATE-10'],
    make: sub(NonIdempotentCreate),
  },
  {
    name: 'leaks on a failed step',
    breaks: 'a retry after a partial failure reuses what the failed attempt made',
    caughtBy: ['CREATE-02', 'CREATE-13'],
    make: sub(LeaksOnFailedStep),
  },
  {
    name: 'NotFound where Transient is due',
    breaks: 'a backend NotFound during create is Transient',
    caughtBy: ['CREATE-08'],
    make: sub(NotFoundDuringCreate),
  },
  {
    name: 'logs cloud-init',
    breaks: 'cloud-init never appears in a log line',
    caughtBy: ['OPS-03'],
    make: sub(LogsCloudInit),
  },
  {
    name: 'ignores abort',
    breaks: 'every call returns promptly once its signal aborts',
    caughtBy: ['OPS-01', 'OPS-05'],
    make: (args) => {
      const inner = new ReferenceProvider(args);
      return { provider: new IgnoresAbort(inner), checker: checkerFor(args, args.backend) };
    },
  },
  {
    name: 'wrong provider name in errors',
    breaks: 'every error carries the configured provider name',
    caughtBy: ['OPS-02'],
    make: sub(WrongProviderName),
  },
  {
    name: 'treats unmarked instances as ours',
    breaks: 'an instance without the mark is never adopted, listed, read or deleted',
    caughtBy: ['CREATE-06', 'GET-11', 'LIST-01', 'DELETE-08'],
    make: sub(TreatsUnmarkedAsOurs),
  },
  {
    name: 'adopts a foreign UID',
    breaks: 'an instance with another UID is Permanent for create',
    caughtBy: ['CREATE-05'],
    make: sub(AdoptsForeignUid),
  },
  {
    name: 'busy backend reads as NotFound',
    breaks: 'get on a busy or unreachable backend is Transient',
    caughtBy: ['GET-03'],
    make: sub(BusyIsNotFound),
  },
  {
    name: 'returns before running',
    breaks: 'a blocking create returns only when the instance runs',
    caughtBy: ['CREATE-03', 'CREATE-11'],
    make: sub(ReturnsBeforeRunning),
  },
  {
    name: 'deletes without stopping',
    breaks: 'a running instance is stopped before it is removed',
    caughtBy: ['DELETE-04'],
    make: sub(DeletesWithoutStopping),
  },
  {
    name: 'address failure is an error',
    breaks: 'a failing address source is Provisioning',
    caughtBy: ['GET-06'],
    make: sub(AddressFailureIsError),
  },
  {
    name: 'ignores its list-partial policy',
    breaks: 'listByTag follows the declared list-partial policy',
    caughtBy: ['LIST-04'],
    make: sub(IgnoresListPolicy),
  },
  {
    name: 'prints to the console',
    breaks: 'a provider is silent at V0',
    caughtBy: ['OPS-04'],
    make: sub(PrintsToConsole),
  },
  {
    name: 'puts the token in an error',
    breaks: 'credentials never appear in an error message',
    caughtBy: ['OPS-03'],
    make: sub(TokenInErrors),
  },
  {
    name: 'createdAt from the clock',
    breaks: 'get reads createdAt back from the backend',
    caughtBy: ['GET-07'],
    make: sub(CreatedAtFromTheClock),
  },
  {
    name: 'dials in its constructor',
    breaks: 'a factory never touches the backend',
    caughtBy: ['OPS-06'],
    make: sub(DialsOnConstruction),
  },
  {
    name: 'usable after close',
    breaks: 'calls after close are Permanent',
    caughtBy: ['OPS-07'],
    make: sub(UsableAfterClose),
  },
  {
    name: 'checks targets one by one',
    breaks: 'Checker targets are checked concurrently',
    caughtBy: ['CHECK-02'],
    make: (args) => {
      const provider = new ReferenceProvider(args);
      return {
        provider,
        checker: new SequentialChecker(
          args.name,
          resolveReferenceConfig(args.name, args.config),
          args.backend,
          () => false,
        ),
      };
    },
  },
];
