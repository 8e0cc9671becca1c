import type {
  CallOptions,
  Checker,
  CheckResult,
  CreateRequest,
  Instance,
  LogFields,
  Logger,
  Provider,
  ProviderProfile,
  SecondaryResource,
} from '@egress-proxies/contract';
import { createOperationRunner, instanceFields, type OperationRunnerOptions } from './operation-runner.js';

/**
 * What every op of every provider gets as its first argument: the call's signal, its logger
 * (naming the provider entry and the instance), and the operation's name. A provider extends it
 * with its own state (config, clients, locks) in its `context` hook, so an op reads everything
 * from one place.
 *
 * Why one context argument and not `(req, opts)` like the contract: an op needs the provider's
 * state as much as the call's signal, and passing both in one record keeps every op's signature
 * the contract's own arguments after `ctx` (`create(ctx, req)`, `get(ctx, id)`), whatever the
 * provider keeps in its state.
 */
export interface OpContext {
  /** `create`, `get`, `delete`, `listByTag`, `check`, ... */
  readonly operation: string;
  /** The caller's signal (absent when the caller passed none). */
  readonly signal: AbortSignal | undefined;
  /** The call's logger: the caller's, else the provider's, else silent; fields already set. */
  readonly logger: Logger;
}

/**
 * The operations of one provider, each `(ctx, <the contract's arguments>)`. The contract's
 * options (signal, logger) arrive inside `ctx`; closing, aborting, classifying and logging are
 * `defineProvider`'s, not the op's.
 */
export interface ProviderOps<C extends OpContext> {
  create(ctx: C, req: CreateRequest): Promise<string>;
  get(ctx: C, id: string): Promise<Instance>;
  delete(ctx: C, id: string): Promise<void>;
  listByTag(ctx: C): Promise<Instance[]>;
  /** The Checker: one result per target; it reports failures as results, so it is not classified. */
  check(ctx: C): Promise<CheckResult[]>;
  /** Optional: what the provider creates beside instances (contract 2.11). */
  listSecondary?(ctx: C): Promise<SecondaryResource[]>;
  deleteSecondary?(ctx: C, id: string): Promise<void>;
}

export interface ProviderDefinition<C extends OpContext, E extends object = object>
  extends Pick<
    OperationRunnerOptions,
    'classify' | 'raceSignal' | 'fields' | 'operationField' | 'failureLogPrefix'
  > {
  /** The provider type (`gcp`, `kvm`, ...). */
  type: string;
  /** The configured entry name, carried by every error and log line. */
  name: string;
  profile: ProviderProfile;
  /** The logger a call uses when it brings none; silent when absent. */
  logger?: Logger | undefined;
  /** Builds an op's context from the call's; the provider's state goes in here. */
  context(call: OpContext): C;
  /**
   * Runs an op (or the check) inside something that must hold for its whole duration (an async
   * context carrying the call's logger, for a transport's own lines). Default: runs it as is.
   */
  around?<T>(ctx: C, fn: () => Promise<T>): Promise<T>;
  /**
   * The instance name an ID names, for the `name` field of a get's or delete's lines (contract
   * 2.9); a malformed ID may throw (the op's own error then names it).
   */
  nameOfId?(id: string): unknown;
  /** Extra fields of a get's or delete's lines, beside the name (kvm adds the ID). */
  idFields?(id: string): LogFields;
  ops: ProviderOps<C>;
  /** Releases the provider's resources; called once, by the first `close()`. */
  close?(): Promise<void>;
  /** Properties of the returned provider beside the contract's (its config, a witness). */
  extra?: E;
}

/** A provider made by `defineProvider`: the contract's Provider and its Checker in one object. */
export type DefinedProvider<E extends object = object> = Provider &
  Checker & {
    close(): Promise<void>;
    listSecondary?(opts?: CallOptions): Promise<SecondaryResource[]>;
    deleteSecondary?(id: string, opts?: CallOptions): Promise<void>;
  } & E;

/**
 * Builds a provider from its ops: owns the closed flag (every call after `close()` is refused
 * with Permanent `PROVIDER_CLOSED`), the call runner (fail fast on an aborted signal, return
 * promptly when it aborts mid-way, classify and wrap every error with the entry's name and the
 * operation) and each line's fields (provider, operation, instance name, trace IDs).
 */
export function defineProvider<C extends OpContext, E extends object = object>(
  def: ProviderDefinition<C, E>,
): DefinedProvider<E> {
  const { name, ops } = def;
  let closed = false;
  const runner = createOperationRunner({
    name,
    logger: def.logger,
    isClosed: () => closed,
    ...(def.classify ? { classify: def.classify } : {}),
    ...(def.raceSignal === undefined ? {} : { raceSignal: def.raceSignal }),
    ...(def.fields ? { fields: def.fields } : {}),
    ...(def.operationField === undefined ? {} : { operationField: def.operationField }),
    ...(def.failureLogPrefix ? { failureLogPrefix: def.failureLogPrefix } : {}),
  });
  const around = <T>(ctx: C, fn: () => Promise<T>): Promise<T> => (def.around ? def.around(ctx, fn) : fn());
  const run = <T>(
    operation: string,
    opts: CallOptions | undefined,
    fields: LogFields,
    fn: (ctx: C) => Promise<T>,
  ): Promise<T> =>
    runner.run(
      operation,
      opts,
      (call) => {
        const ctx = def.context(call);
        return around(ctx, () => fn(ctx));
      },
      fields,
    );
  const about = (id: string): LogFields => ({
    ...def.idFields?.(id),
    ...(def.nameOfId ? instanceFields(() => def.nameOfId?.(id)) : {}),
  });

  const provider: Provider & Checker = {
    name,
    type: def.type,
    profile: def.profile,
    create: (req, opts) =>
      run(
        'create',
        opts,
        instanceFields(() => req.name),
        (ctx) => ops.create(ctx, req),
      ),
    get: (id, opts) => run('get', opts, about(id), (ctx) => ops.get(ctx, id)),
    delete: (id, opts) => run('delete', opts, about(id), (ctx) => ops.delete(ctx, id)),
    listByTag: (opts) => run('listByTag', opts, {}, (ctx) => ops.listByTag(ctx)),
    check: async (opts) => {
      // The same stable code as every other call after close (contract 2.12); otherwise the
      // check never rejects: failures are its results.
      if (closed) throw runner.closedError('check');
      const ctx = def.context({
        operation: 'check',
        signal: opts?.signal,
        logger: runner.loggerFor('check', opts),
      });
      return around(ctx, () => ops.check(ctx));
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await def.close?.();
    },
  };
  const { listSecondary, deleteSecondary } = ops;
  return Object.assign(
    provider,
    listSecondary
      ? { listSecondary: (opts?: CallOptions) => run('listSecondary', opts, {}, (ctx) => listSecondary(ctx)) }
      : {},
    deleteSecondary
      ? {
          deleteSecondary: (id: string, opts?: CallOptions) =>
            run('deleteSecondary', opts, { id }, (ctx) => deleteSecondary(ctx, id)),
        }
      : {},
    def.extra ?? {},
  ) as DefinedProvider<E>;
}
