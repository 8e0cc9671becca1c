import { CheckReason, type CheckResult, ErrorCode, ProviderError } from '@egress-proxies/contract';
import { ApiError } from './api-error.js';
import type { Context } from './context.js';
import { readToken } from './credentials.js';
import { isNetworkError, isTlsVerifyError } from './errors.js';

/** Reasons of this Checker beyond the shared ones. */
export const ProxmoxCheckReason = {
  StorageNotFound: 'StorageNotFound',
  StorageFull: 'StorageFull',
  TemplateNotFound: 'TemplateNotFound',
  GuestAgentPermissionMissing: 'GuestAgentPermissionMissing',
} as const;

/** Below this the seed ISO (a few hundred KiB) may not fit any more. */
const MIN_FREE_BYTES = 64 * 1024 * 1024;
const GiB = 1024 ** 3;

class CheckFailure extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** One result per configured node, in config order, probed concurrently on the shared client. */
export async function check(ctx: Context): Promise<CheckResult[]> {
  const address = new URL(ctx.cfg.url).host;
  return Promise.all(ctx.cfg.nodes.map((node) => checkNode(ctx, node, address, ctx.cfg.tokenFile)));
}

async function checkNode(
  parent: Context,
  node: string,
  address: string,
  tokenFile: string,
): Promise<CheckResult> {
  const round = AbortSignal.any([parent.signal, AbortSignal.timeout(parent.budgets.checkMs)]);
  const ctx: Context = { ...parent, signal: round };
  const details: Record<string, string> = { isoStorage: ctx.cfg.isoStorage };
  const result = (ready: boolean, reason: string, message: string): CheckResult => {
    ctx.logger.log(1, 'proxmox node checked', { node, ready, reason });
    return { target: node, address, ready, reason, message, details };
  };
  try {
    await probeNode(ctx, node, tokenFile, details);
    return result(true, CheckReason.Ready, `node ${node} is ready`);
  } catch (err) {
    if (round.aborted) return result(false, CheckReason.Timeout, `node ${node} did not answer in time`);
    if (err instanceof CheckFailure) return result(false, err.reason, err.message);
    return result(false, checkReason(err), (err as Error).message);
  }
}

export function checkReason(err: unknown): string {
  if (ProviderError.isInstance(err)) {
    if (err.code === ErrorCode.CredentialsUnavailable) return CheckReason.CredentialsUnavailable;
    if (err.code === ErrorCode.CertificateInvalid) return CheckReason.CertificateInvalid;
  }
  if (ApiError.isInstance(err)) {
    if (err.status === 401) return CheckReason.Unauthorized;
    if (err.status === 403) return CheckReason.Forbidden;
    if (err.status === 595 || err.status === 596) return CheckReason.Unreachable;
    return CheckReason.APIError;
  }
  if (isTlsVerifyError(err)) return CheckReason.CertificateInvalid;
  const name = (err as { name?: string })?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return CheckReason.Timeout;
  if (isNetworkError(err)) return CheckReason.Unreachable;
  return CheckReason.Unreachable;
}

async function probeNode(
  ctx: Context,
  node: string,
  tokenFile: string,
  details: Record<string, string>,
): Promise<void> {
  // No request with an unusable token file: its reason is the file, not the server.
  details.tokenID = (await readToken(tokenFile)).id;
  const v = await ctx.api.version(ctx.signal);
  details.pveVersion = v.version;
  const ns = await ctx.api.nodeStatus(ctx.signal, node);
  if (ns.kversion) details.kernel = ns.kversion;

  let st: Awaited<ReturnType<typeof ctx.api.storageStatus>>;
  try {
    st = await ctx.api.storageStatus(ctx.signal, node, ctx.cfg.isoStorage);
  } catch (err) {
    // An unknown storage is a 400 (`No such storage.`, reference §10); a 500 whatever its text.
    if (ApiError.isInstance(err) && (err.status === 400 || err.status === 500)) {
      throw new CheckFailure(
        ProxmoxCheckReason.StorageNotFound,
        `storage ${ctx.cfg.isoStorage} on node ${node}: ${err.message}`,
      );
    }
    throw err;
  }
  if (Number(st.active) !== 1)
    throw new CheckFailure(
      ProxmoxCheckReason.StorageNotFound,
      `storage ${ctx.cfg.isoStorage} is not active on node ${node}`,
    );
  if (
    !String(st.content ?? '')
      .split(',')
      .includes('iso')
  ) {
    throw new CheckFailure(
      ProxmoxCheckReason.StorageNotFound,
      `storage ${ctx.cfg.isoStorage} on node ${node} does not hold iso content`,
    );
  }
  const avail = Number(st.avail ?? 0);
  details.isoStorageAvailGiB = (avail / GiB).toFixed(1);
  if (avail < MIN_FREE_BYTES)
    throw new CheckFailure(
      ProxmoxCheckReason.StorageFull,
      `storage ${ctx.cfg.isoStorage} on node ${node} has ${avail} bytes free`,
    );

  const resources = await ctx.api.clusterResources(ctx.signal);
  const ok: string[] = [];
  for (const [key, vmid] of Object.entries(ctx.cfg.templates)) {
    const e = resources.find((r) => r.vmid === vmid && r.type === 'qemu');
    if (!e)
      throw new CheckFailure(
        ProxmoxCheckReason.TemplateNotFound,
        `template ${key} (VMID ${vmid}) does not exist`,
      );
    // A template on another node is that node's check (an unreachable node is its own problem);
    // one missing from the cluster is every node's.
    if (e.node !== node) {
      ok.push(`${key}=${vmid}@${e.node}`);
      continue;
    }
    const cfg = await ctx.api.vmConfig(ctx.signal, e.node, vmid);
    if (Number(cfg.template) !== 1)
      throw new CheckFailure(
        ProxmoxCheckReason.TemplateNotFound,
        `template ${key} (VMID ${vmid}) is not a template`,
      );
    ok.push(`${key}=${vmid}`);
  }
  details.templates = ok.join(',');

  // PVE 9 reads the agent with VM.GuestAgent.Audit (or .Unrestricted); PVE 8 with VM.Monitor
  // (reference §8). Without it Get never sees an address. /access/permissions is outside the
  // reference: it answers {path: {privilege: 1}} for the calling token.
  const major = Number(/^(\d+)/.exec(v.version)?.[1] ?? 0);
  const wanted = major >= 9 ? ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'] : ['VM.Monitor'];
  const perms = await ctx.api.permissions(ctx.signal, '/vms');
  const held = Object.values(perms).flatMap((p) => Object.keys(p).filter((k) => p[k]));
  const has = wanted.find((w) => held.includes(w));
  details.guestAgentPermission = has ?? 'missing';
  if (!has) {
    throw new CheckFailure(
      ProxmoxCheckReason.GuestAgentPermissionMissing,
      `the token lacks ${wanted.join(' or ')} on /vms: Get cannot read guest addresses`,
    );
  }
}
