import { ErrorCode, ErrorKind, ProviderError, transientError } from '@egress-proxies/contract';
import {
  CallTimeoutError,
  ConnectionClosedError,
  ErrorNumber,
  SshAuthenticationError,
  SshForwardingRefusedError,
  SshHostKeyMismatchError,
  SshSocketNotFoundError,
  SshUnknownHostKeyError,
  TransportError,
} from 'libvirt-rpc-ts';
import { describe, expect, it } from 'vitest';
import { classify, type Phase } from './errors.js';
import { libvirtError } from './test/fake-libvirt.js';

const E = ErrorNumber;
const kindOf = (phase: Phase, err: unknown) => {
  const c = classify(phase, err);
  return ProviderError.isInstance(c) ? `${c.kind}/${c.code}` : 'unclassified';
};

describe('classify', () => {
  const rows: [string, unknown, Phase, string][] = [
    ['no domain in get', libvirtError(E.VIR_ERR_NO_DOMAIN, 'x'), 'get', 'NotFound/NOT_FOUND'],
    [
      'a full pool at any step',
      libvirtError(
        E.VIR_ERR_SYSTEM_ERROR,
        "cannot allocate 10737418240 bytes in file '/var/lib/libvirt/images/proxy-0a1b-overlay.qcow2': No space left on device",
      ),
      'create',
      'QuotaExceeded/QUOTA_EXCEEDED',
    ],
    [
      'another system error',
      libvirtError(E.VIR_ERR_SYSTEM_ERROR, "cannot open file '/x': Permission denied"),
      'create',
      'Transient/BACKEND_ERROR',
    ],
    ['no domain inside create', libvirtError(E.VIR_ERR_NO_DOMAIN, 'x'), 'create', 'Transient/TRANSIENT'],
    ['no volume in get', libvirtError(E.VIR_ERR_NO_STORAGE_VOL, 'x'), 'get', 'NotFound/NOT_FOUND'],
    ['no volume in delete', libvirtError(E.VIR_ERR_NO_STORAGE_VOL, 'x'), 'delete', 'Transient/TRANSIENT'],
    ['no domain in list', libvirtError(E.VIR_ERR_NO_DOMAIN, 'x'), 'list', 'Transient/TRANSIENT'],
    ['no volume inside create', libvirtError(E.VIR_ERR_NO_STORAGE_VOL, 'x'), 'create', 'Transient/TRANSIENT'],
    [
      'no pool outside create',
      libvirtError(E.VIR_ERR_NO_STORAGE_POOL, 'x'),
      'get',
      'Permanent/POOL_NOT_FOUND',
    ],
    [
      'no pool inside create',
      libvirtError(E.VIR_ERR_NO_STORAGE_POOL, 'x'),
      'create',
      'Transient/POOL_NOT_FOUND',
    ],
    ['xml error', libvirtError(E.VIR_ERR_XML_ERROR, 'x'), 'create', 'Permanent/BACKEND_ERROR'],
    ['no support', libvirtError(E.VIR_ERR_NO_SUPPORT, 'x'), 'create', 'Permanent/BACKEND_ERROR'],
    ['invalid arg', libvirtError(E.VIR_ERR_INVALID_ARG, 'x'), 'create', 'Permanent/BACKEND_ERROR'],
    ['auth failed', libvirtError(E.VIR_ERR_AUTH_FAILED, 'x'), 'get', 'Permanent/AUTH_FAILED'],
    ['access denied', libvirtError(E.VIR_ERR_ACCESS_DENIED, 'x'), 'get', 'Permanent/FORBIDDEN'],
    ['busy', libvirtError(E.VIR_ERR_RESOURCE_BUSY, 'x'), 'get', 'Transient/BACKEND_BUSY'],
    ['internal', libvirtError(E.VIR_ERR_INTERNAL_ERROR, 'x'), 'get', 'Transient/BACKEND_ERROR'],
    [
      'operation invalid',
      libvirtError(E.VIR_ERR_OPERATION_INVALID, 'x'),
      'create',
      'Transient/BACKEND_ERROR',
    ],
    ['ssh auth', new SshAuthenticationError('refused'), 'get', 'Permanent/AUTH_FAILED'],
    ['unknown host key', new SshUnknownHostKeyError('unknown'), 'create', 'Permanent/HOST_KEY_REJECTED'],
    ['host key mismatch', new SshHostKeyMismatchError('mismatch'), 'list', 'Permanent/HOST_KEY_REJECTED'],
    ['forwarding refused', new SshForwardingRefusedError('no'), 'get', 'Permanent/BACKEND_ERROR'],
    [
      'socket missing (libvirtd restarting)',
      new SshSocketNotFoundError('gone'),
      'get',
      'Transient/UNREACHABLE',
    ],
    ['transport', new TransportError('ECONNREFUSED'), 'get', 'Transient/UNREACHABLE'],
    ['connection closed', new ConnectionClosedError('closed'), 'get', 'Transient/UNREACHABLE'],
    ['call timeout', new CallTimeoutError('slow'), 'get', 'Transient/TIMEOUT'],
    ['anything else', new Error('EPIPE'), 'get', 'Transient/TRANSIENT'],
    [
      'already classified',
      transientError('x', { code: ErrorCode.CredentialsUnavailable }),
      'get',
      'Transient/CREDENTIALS_UNAVAILABLE',
    ],
  ];
  it.each(rows)('%s', (_what, err, phase, want) => {
    expect(kindOf(phase, err)).toBe(want);
  });
  it('passes aborts through unchanged so the boundary reports ABORTED', () => {
    const abort = new DOMException('aborted', 'AbortError');
    expect(classify('create', abort)).toBe(abort);
  });
  it('keeps libvirt codes in details', () => {
    const c = classify('get', libvirtError(E.VIR_ERR_INTERNAL_ERROR, 'boom')) as ProviderError;
    expect(c.details).toMatchObject({ libvirtCode: 1, libvirtCodeName: 'VIR_ERR_INTERNAL_ERROR' });
    expect(c.kind).toBe(ErrorKind.Transient);
  });
});
