import { ErrorCode, permanentError } from '@egress-proxies/contract';

type RpcModule = typeof import('libvirt-rpc-ts');

let loading: Promise<RpcModule> | undefined;

/**
 * libvirt-rpc-ts's client side (its procedure tables, and Node's net, stream and fs with them),
 * loaded with the first connection instead of with the package: building a provider, validating
 * config and classifying errors need only `libvirt-rpc-ts/codes`. A module that cannot load (a
 * broken or partial install) fails the call as Permanent, like a missing ssh2; the next call
 * tries again.
 */
export function loadRpc(): Promise<RpcModule> {
  loading ??= import('libvirt-rpc-ts').catch((err: unknown) => {
    loading = undefined;
    throw permanentError(
      `cannot load the libvirt client module libvirt-rpc-ts (${err instanceof Error ? err.message : String(err)}); reinstall the package`,
      { cause: err, code: ErrorCode.BackendError },
    );
  });
  return loading;
}
