import { CheckReason, type CheckResult, ErrorCode, ProviderError } from '@egress-proxies/contract';
import {
  ErrorNumber,
  LibvirtError,
  SshAuthenticationError,
  SshHostKeyMismatchError,
  SshUnknownHostKeyError,
  StoragePoolState,
  UnsupportedAuthError,
} from 'libvirt-rpc-ts/codes';
import type { KvmBackend } from './backend.js';
import type { KvmHost } from './config.js';
import { type Context, type Core, openOp } from './core.js';
import { race } from './detach.js';

/** The Checker's reasons: the shared ones plus these. */
export const KvmCheckReason = {
  ...CheckReason,
  PoolNotFound: 'PoolNotFound',
  PoolNotActive: 'PoolNotActive',
} as const;

const GiB = 1024 ** 3;
const gib = (n: bigint) => (Number(n) / GiB).toFixed(1);

function versionText(v: number): string {
  return `${Math.floor(v / 1_000_000)}.${Math.floor(v / 1000) % 1000}.${v % 1000}`;
}

/** Why a check failed, from the error's own type and code. */
export function checkReason(err: unknown): { reason: string; message: string } {
  const message = err instanceof Error ? err.message : String(err);
  if (ProviderError.isInstance(err) && err.code === ErrorCode.CredentialsUnavailable)
    return { reason: KvmCheckReason.CredentialsUnavailable, message };
  if (SshUnknownHostKeyError.isInstance(err) || SshHostKeyMismatchError.isInstance(err))
    return { reason: KvmCheckReason.HostKeyMismatch, message };
  if (SshAuthenticationError.isInstance(err) || UnsupportedAuthError.isInstance(err))
    return { reason: KvmCheckReason.Unauthorized, message };
  if (LibvirtError.isInstance(err)) {
    if (err.code === ErrorNumber.VIR_ERR_ACCESS_DENIED || err.code === ErrorNumber.VIR_ERR_AUTH_FAILED)
      return { reason: KvmCheckReason.Forbidden, message };
    if (err.code === ErrorNumber.VIR_ERR_NO_STORAGE_POOL)
      return { reason: KvmCheckReason.PoolNotFound, message };
    return { reason: KvmCheckReason.APIError, message };
  }
  return { reason: KvmCheckReason.Unreachable, message };
}

async function checkHost(ctx: Context, host: KvmHost): Promise<CheckResult> {
  const core: Core = ctx;
  const op = openOp({ signal: ctx.signal, logger: ctx.logger.child({ host: host.name }) });
  const details: Record<string, string> = { user: host.user, pool: host.pool };
  const result = (ready: boolean, reason: string, message: string): CheckResult => ({
    target: host.name,
    address: host.address,
    ready,
    reason,
    message,
    details,
  });
  let b: KvmBackend | undefined;
  let abandoned = false;
  let outcome = 'failed';
  try {
    if (op.signal?.aborted) return result(false, KvmCheckReason.Timeout, 'the check ran out of time');
    // A dedicated connection: the check never touches (or cuts) the pooled one.
    const dialing = core.hosts.fresh(host, op.call);
    dialing.then(
      (c) => {
        if (abandoned) void c.close().catch(() => {});
      },
      () => {},
    );
    b = await race(dialing, op.signal);
    details.libvirtVersion = versionText(await race(b.connectGetLibVersion(op.call), op.signal));
    details.hostname = await race(b.connectGetHostname(op.call), op.signal);
    const pool = await race(b.storagePoolLookupByName(host.pool, op.call), op.signal);
    const info = await race(b.storagePoolGetInfo(pool, op.call), op.signal);
    details.poolState = String(info.state);
    details.poolCapacityGiB = gib(info.capacity);
    details.poolAvailableGiB = gib(info.available);
    if (info.state !== StoragePoolState.RUNNING)
      return result(false, KvmCheckReason.PoolNotActive, `storage pool ${host.pool} is not running`);
    outcome = KvmCheckReason.Ready;
    return result(true, KvmCheckReason.Ready, `libvirt ${details.libvirtVersion} on ${details.hostname}`);
  } catch (err) {
    if (op.signal?.aborted) return result(false, KvmCheckReason.Timeout, 'the check ran out of time');
    const { reason, message } = checkReason(err);
    outcome = reason;
    return result(false, reason, message);
  } finally {
    abandoned = b === undefined;
    if (b) void b.close().catch(() => {});
    op.log.log(1, `${core.flavour.type} host checked`, { host: host.name, reason: outcome });
  }
}

/** Every host concurrently, each on a fresh connection; one result per host in config order. */
export function checkHosts(ctx: Context): Promise<CheckResult[]> {
  return Promise.all(ctx.config.hosts.map((h) => checkHost(ctx, h)));
}
