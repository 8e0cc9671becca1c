import {
  type CallOptions,
  CheckReason,
  type CheckResult,
  type CreateRequest,
  ErrorCode,
  ErrorKind,
  type Logger,
  ProviderError,
  permanentError,
} from '@egress-proxies/contract';
import {
  classifyBackendError,
  ReferenceBackendError,
  ReferenceChecker,
  ReferenceProvider,
  resolveReferenceConfig,
} from '../../src/reference/index.js';
import { sub } from './adoption-mutants.js';
import type { Mutant } from './mutants.js';

/** Rewrites what the reference classifier made of one backend code. */
function reclassify(code: string, to: (e: ProviderError) => ProviderError) {
  return class extends ReferenceProvider {
    protected override classify(operation: string, err: unknown): ProviderError {
      const e = classifyBackendError(this.name, operation, err);
      return ReferenceBackendError.isInstance(err) && err.code === code ? to(e) : e;
    }
  };
}

const as = (kind: ErrorKind, code: string) => (e: ProviderError) =>
  new ProviderError({ kind, code, message: e.message, provider: e.provider, operation: e.operation });

class ClosedWithoutCode extends ReferenceProvider {
  protected override assertOpen(signal?: AbortSignal): void {
    if (this.closed) throw permanentError('the provider is closed');
    super.assertOpen(signal);
  }
}

class QuotaOnlyAtPrecheck extends ReferenceProvider {
  protected override classify(operation: string, err: unknown): ProviderError {
    const e = super.classify(operation, err);
    const late = ReferenceBackendError.isInstance(err) && err.code === 'NO_SPACE' && err.step !== 'pool';
    return late ? as(ErrorKind.Transient, ErrorCode.BackendError)(e) : e;
  }
}

class CachingChecker extends ReferenceChecker {
  #last: CheckResult[] | undefined;
  override async check(opts?: CallOptions): Promise<CheckResult[]> {
    this.#last ??= await super.check(opts);
    return this.#last;
  }
}

class TimeoutOnlyAtTheProbe extends ReferenceChecker {
  protected override async checkHost(
    host: { name: string; address: string; pool: string },
    signal: AbortSignal | undefined,
    log: Logger,
  ): Promise<CheckResult> {
    const r = await super.checkHost(host, signal, log);
    // Forgets the deadline once the probe answered: a hang in the pool call reads as an API error.
    return r.reason === CheckReason.Timeout && r.details.hostname
      ? { ...r, reason: CheckReason.APIError }
      : r;
  }
}

class TrustsTheUid extends ReferenceProvider {
  protected override placement(req: CreateRequest) {
    return super.placement({ ...req, uid: String(req.uid) });
  }
}

class UnanchoredIds extends ReferenceProvider {
  override get(id: string, opts?: CallOptions) {
    // Finds the ID anywhere in the string instead of parsing the whole of it.
    const m = /hosts\/[a-z0-9-]+\/domains\/[a-z0-9-]+/.exec(id);
    return super.get(m ? m[0] : id, opts);
  }
}

const withChecker = (Cls: typeof ReferenceChecker) => (args: Parameters<Mutant['make']>[0]) => {
  const provider = new ReferenceProvider(args);
  const config = resolveReferenceConfig(args.name, args.config);
  return { provider, checker: new Cls(args.name, config, args.backend, () => provider.closed) };
};

/** The v2 mutants: one per rule the kit's second version added a case for. */
export const V2_MUTANTS: readonly Mutant[] = [
  {
    name: 'closed without the stable code',
    breaks: 'every call after close is Permanent PROVIDER_CLOSED',
    caughtBy: ['OPS-09'],
    make: sub(ClosedWithoutCode),
  },
  {
    name: 'checker keeps working after close',
    breaks: 'check after close is Permanent PROVIDER_CLOSED',
    caughtBy: ['OPS-09'],
    make: (args) => {
      const provider = new ReferenceProvider(args);
      const config = resolveReferenceConfig(args.name, args.config);
      return { provider, checker: new ReferenceChecker(args.name, config, args.backend, () => false) };
    },
  },
  {
    name: 'trusts the request uid',
    breaks: 'a malformed request is Permanent before any backend call',
    caughtBy: ['CREATE-18'],
    make: sub(TrustsTheUid),
  },
  {
    name: 'unanchored ID parsing',
    breaks: 'an ID is parsed whole: garbage around a real ID is never that instance',
    caughtBy: ['GET-13'],
    make: sub(UnanchoredIds),
  },
  {
    name: 'the checker answers from a cache',
    breaks: 'a check never answers from a cache',
    caughtBy: ['CHECK-05'],
    make: withChecker(CachingChecker),
  },
  {
    name: 'Timeout only while probing',
    breaks: 'a deadline at any checker stage is Timeout',
    caughtBy: ['CHECK-06'],
    make: withChecker(TimeoutOnlyAtTheProbe),
  },
  {
    name: 'rejected credentials are retried',
    breaks: 'rejected credentials are Permanent at every step',
    caughtBy: ['OPS-08'],
    make: sub(reclassify('AUTH', as(ErrorKind.Transient, ErrorCode.AuthFailed))),
  },
  {
    name: 'unclassified is Permanent',
    breaks: 'an error nobody classified is Transient',
    caughtBy: ['OPS-08'],
    make: sub(reclassify('INTERNAL', as(ErrorKind.Permanent, ErrorCode.BackendError))),
  },
  {
    name: 'a backend timeout has no code',
    breaks: 'a timeout is Transient TIMEOUT',
    caughtBy: ['OPS-08'],
    make: sub(reclassify('TIMEOUT', as(ErrorKind.Transient, ErrorCode.Transient))),
  },
  {
    name: 'out of capacity only at the precheck',
    breaks: 'out of capacity is QuotaExceeded at any create step',
    caughtBy: ['OPS-08'],
    make: sub(QuotaOnlyAtPrecheck),
  },
];
