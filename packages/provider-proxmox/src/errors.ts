import {
  ErrorCode,
  ErrorKind,
  isAbortError,
  ProviderError,
  type ProviderErrorOptions,
} from '@egress-proxies/contract';
import { ApiError, TaskError } from './api-error.js';

// Every text below is a PVE error text from the reference, matched only together with the
// status it comes with, so an unrelated message that happens to contain the words is not taken
// for it. Task errors carry no status: they are matched on the task's exitstatus instead.

/** §4: `Configuration file 'nodes/<n>/qemu-server/<vmid>.conf' does not exist` (500). */
/** Codes this provider adds to the contract's (documented in the README). */
export const ProxmoxErrorCode = {
  /** A clone lock outlived the clone budget: a clone task on the node is stuck. */
  CloneLockStuck: 'CLONE_LOCK_STUCK',
  /** The template named by the config is not there (yet) on the node. */
  TemplateNotFound: 'TEMPLATE_NOT_FOUND',
  /** The template named by the config is not usable (a VM, no cloud-init drive, ...). */
  TemplateInvalid: 'TEMPLATE_INVALID',
} as const;

const NOT_EXIST_RE = /^Configuration file '[^']*' does not exist/;
/** §6 stop task on a vanished VM: `unable to find configuration file for VM <vmid> on node '<n>'`. */
const NO_CONFIG_TASK_RE = /^unable to find configuration file for VM \d+/;
/** §3: `unable to create VM <newid>: config file already exists` (500). */
const ALREADY_EXISTS_RE = /^unable to create VM \d+: config file already exists/;
/** §3 task: the VMID is taken on another node or by a CT, refused by pmxcfs at the rename. */
const EXISTS_ELSEWHERE_RE = /close \(rename\) atomic file '[^']*' failed: File exists/;
/** §8: `No QEMU guest agent configured` (500). */
const AGENT_NOT_CONFIGURED_RE = /^No QEMU guest agent configured/;
/** §8: `QEMU guest agent is not running` (500). */
const AGENT_NOT_RUNNING_RE = /^QEMU guest agent is not running/;
/** §8: `VM <vmid> is not running` (500). */
const VM_NOT_RUNNING_RE = /^VM \d+ is not running/;
/** §6 start task: `VM <vmid> already running`. */
const ALREADY_RUNNING_RE = /^VM \d+ already running/;
/** §12: `VM is locked (<lock>)` (500 or task). */
const LOCKED_RE = /^VM is locked \(([a-z-]+)\)/;
/** §3/§4: a flock wait that ran out: `can't lock file '...' - got timeout`. */
const FLOCK_TIMEOUT_RE = /can't lock file '[^']*' - got timeout/;
/**
 * Parallel clones on one storage serialise on the cluster-wide storage lock; the loser's task ends
 * `cfs-lock 'storage-<id>' error: got lock request timeout` (pve-cluster's cfs_lock helper; this
 * one is not in the reference file, it is PVE's lock wrapper text).
 */
const STORAGE_LOCK_RE = /cfs-lock '[^']*' error: got lock request timeout/;

const firstLine = (s: string) => s.split('\n')[0]?.trim() ?? '';
const is500 = (e: unknown, re: RegExp): boolean =>
  ApiError.isInstance(e) && e.status === 500 && re.test(firstLine(e.text || e.statusText));
const isTask = (e: unknown, re: RegExp): boolean => TaskError.isInstance(e) && re.test(e.exitstatus);

export const isNotExist = (e: unknown): boolean =>
  is500(e, NOT_EXIST_RE) || isTask(e, NOT_EXIST_RE) || isTask(e, NO_CONFIG_TASK_RE);
export const isAlreadyExists = (e: unknown): boolean =>
  is500(e, ALREADY_EXISTS_RE) || isTask(e, EXISTS_ELSEWHERE_RE);
export const isAgentNotConfigured = (e: unknown): boolean => is500(e, AGENT_NOT_CONFIGURED_RE);
export const isAgentNotRunning = (e: unknown): boolean => is500(e, AGENT_NOT_RUNNING_RE);
export const isVmNotRunning = (e: unknown): boolean => is500(e, VM_NOT_RUNNING_RE);
export const isAlreadyRunning = (e: unknown): boolean => isTask(e, ALREADY_RUNNING_RE);
export const isLocked = (e: unknown): boolean => is500(e, LOCKED_RE) || isTask(e, LOCKED_RE);
export const isStorageLockTimeout = (e: unknown): boolean =>
  is500(e, STORAGE_LOCK_RE) ||
  isTask(e, STORAGE_LOCK_RE) ||
  isTask(e, FLOCK_TIMEOUT_RE) ||
  is500(e, FLOCK_TIMEOUT_RE);

/** Node's TLS verification error codes (the x509 family): the server's certificate was refused. */
const TLS_VERIFY_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
]);

function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  let e = err;
  for (let i = 0; i < 8 && typeof e === 'object' && e !== null; i++) {
    out.push(e);
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

export function isTlsVerifyError(err: unknown): boolean {
  return causes(err).some((e) => TLS_VERIFY_CODES.has(String((e as { code?: unknown }).code)));
}

const NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

export function isNetworkError(err: unknown): boolean {
  return causes(err).some((e) => NET_CODES.has(String((e as { code?: unknown }).code)));
}

type Op = 'create' | 'get' | 'delete' | 'listByTag' | 'check' | 'listSecondary' | 'deleteSecondary' | string;

const mk = (kind: ErrorKind, message: string, extra: Omit<ProviderErrorOptions, 'kind' | 'message'>) =>
  new ProviderError({ kind, message, ...extra });

/**
 * classify(op, err): the one table from a backend failure to the contract's four classes.
 * An error already classified keeps its class.
 */
export function classify(op: Op, err: unknown): ProviderError {
  if (ProviderError.isInstance(err)) return err;
  if (isAbortError(err)) {
    const timeout = (err as { name?: string }).name === 'TimeoutError';
    return mk(ErrorKind.Transient, timeout ? 'request timed out' : 'aborted', {
      code: timeout ? ErrorCode.Timeout : ErrorCode.Aborted,
      operation: op,
      cause: err,
    });
  }
  if (ApiError.isInstance(err)) {
    const details = { httpStatus: err.status };
    const s = err.status;
    if (s === 401)
      return mk(ErrorKind.Permanent, err.message, {
        code: ErrorCode.AuthFailed,
        operation: op,
        cause: err,
        details,
      });
    if (s === 403)
      return mk(ErrorKind.Permanent, err.message, {
        code: ErrorCode.Forbidden,
        operation: op,
        cause: err,
        details,
      });
    if (s >= 400 && s < 500)
      return mk(ErrorKind.Permanent, err.message, {
        code: ErrorCode.BackendError,
        operation: op,
        cause: err,
        details,
      });
    if (isNotExist(err)) {
      // Only get answers "the instance does not exist"; anywhere else a vanished VM is a race with
      // a concurrent delete or migration, and the call is retried.
      return op !== 'get'
        ? mk(ErrorKind.Transient, err.message, {
            code: ErrorCode.Transient,
            operation: op,
            cause: err,
            details,
          })
        : mk(ErrorKind.NotFound, err.message, {
            code: ErrorCode.NotFound,
            operation: op,
            cause: err,
            details,
          });
    }
    if (s === 595 || s === 596)
      return mk(ErrorKind.Transient, err.message, {
        code: ErrorCode.Unreachable,
        operation: op,
        cause: err,
        details,
      });
    if (isLocked(err) || isStorageLockTimeout(err))
      return mk(ErrorKind.Transient, err.message, {
        code: ErrorCode.Busy,
        operation: op,
        cause: err,
        details,
      });
    return mk(ErrorKind.Transient, err.message, {
      code: ErrorCode.BackendError,
      operation: op,
      cause: err,
      details,
    });
  }
  if (TaskError.isInstance(err)) {
    if (isLocked(err) || isStorageLockTimeout(err))
      return mk(ErrorKind.Transient, err.message, { code: ErrorCode.Busy, operation: op, cause: err });
    if (isNotExist(err) && op === 'get')
      return mk(ErrorKind.NotFound, err.message, { code: ErrorCode.NotFound, operation: op, cause: err });
    return mk(ErrorKind.Transient, err.message, { code: ErrorCode.BackendError, operation: op, cause: err });
  }
  if (isTlsVerifyError(err)) {
    return mk(ErrorKind.Permanent, `TLS verification of the API server failed: ${(err as Error).message}`, {
      code: ErrorCode.CertificateInvalid,
      operation: op,
      cause: err,
    });
  }
  if (isNetworkError(err))
    return mk(ErrorKind.Transient, (err as Error).message, {
      code: ErrorCode.Unreachable,
      operation: op,
      cause: err,
    });
  const message = err instanceof Error ? err.message : String(err);
  return mk(ErrorKind.Transient, message, { code: ErrorCode.Transient, operation: op, cause: err });
}
