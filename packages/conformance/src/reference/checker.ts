import {
  type CallOptions,
  type Checker,
  CheckReason,
  type CheckResult,
  ErrorCode,
  type Logger,
  permanentError,
  wrapError,
} from '@egress-proxies/contract';
import { loggerOf } from '@egress-proxies/provider-utils';
import type { ReferenceBackend } from './backend.js';
import { ReferenceBackendError } from './backend-error.js';
import type { ResolvedReferenceConfig } from './config.js';

/** Reasons the reference Checker adds to the shared ones. */
export const ReferenceCheckReason = {
  PoolNotFound: 'PoolNotFound',
  PoolNotActive: 'PoolNotActive',
} as const;

const GiB = 1024 ** 3;

/** Checks every configured host concurrently: reachable, credential accepted, pool present and active. */
export class ReferenceChecker implements Checker {
  protected readonly name: string;
  protected readonly config: ResolvedReferenceConfig;
  readonly #backend: ReferenceBackend;
  readonly #closed: () => boolean;

  /** `closed` says whether the provider this Checker belongs to was closed. */
  constructor(
    name: string,
    config: ResolvedReferenceConfig,
    backend: ReferenceBackend,
    closed: () => boolean,
  ) {
    this.name = name;
    this.config = config;
    this.#backend = backend;
    this.#closed = closed;
  }

  async check(opts?: CallOptions): Promise<CheckResult[]> {
    if (this.#closed()) {
      throw wrapError(
        this.name,
        'check',
        permanentError('the provider is closed', { code: ErrorCode.ProviderClosed }),
      );
    }
    return Promise.all(this.config.hosts.map((h) => this.checkHost(h, opts?.signal, this.logger(opts))));
  }

  protected logger(opts?: CallOptions): Logger {
    return loggerOf(opts).child({ provider: this.name });
  }

  protected async checkHost(
    host: { name: string; address: string; pool: string },
    signal: AbortSignal | undefined,
    log: Logger,
  ): Promise<CheckResult> {
    const details: Record<string, string> = { pool: host.pool };
    const auth = { token: this.config.token.reveal(), signal };
    const result = (ready: boolean, reason: string, message: string): CheckResult => {
      log.log(1, 'reference host checked', { host: host.name, ready, reason });
      return { target: host.name, address: host.address, ready, reason, message, details };
    };
    try {
      const about = await this.#backend.probe(host.name, auth);
      details.hostname = about.hostname;
      details.version = about.version;
      const pool = await this.#backend.poolInfo(host.name, host.pool, auth);
      details.poolState = pool.active ? 'active' : 'inactive';
      details.poolAvailableGiB = (pool.availableBytes / GiB).toFixed(1);
      if (!pool.active)
        return result(false, ReferenceCheckReason.PoolNotActive, `pool ${host.pool} is not active`);
      return result(true, CheckReason.Ready, `${about.hostname} ${about.version}, pool ${host.pool} active`);
    } catch (err) {
      // Whatever the last error was, a round whose signal ended reports Timeout.
      if (signal?.aborted) return result(false, CheckReason.Timeout, 'the check round ran out of time');
      // Only backend errors and the round's abort (above) reach here: anything else is a bug, not a host's state.
      if (!ReferenceBackendError.isInstance(err)) throw err;
      switch (err.code) {
        case 'UNREACHABLE':
          return result(false, CheckReason.Unreachable, `cannot reach ${host.address}`);
        case 'AUTH':
          return result(false, CheckReason.Unauthorized, 'the backend refused the configured token');
        case 'NO_POOL':
          return result(false, ReferenceCheckReason.PoolNotFound, `pool ${host.pool} does not exist`);
        default:
          return result(false, CheckReason.APIError, `${err.step}: ${err.code}`);
      }
    }
  }
}
