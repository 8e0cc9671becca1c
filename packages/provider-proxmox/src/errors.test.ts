import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorKind, isAbortError, ProviderError, transientError } from '@egress-proxies/contract';
import { describe, expect, it } from 'vitest';
import { ApiError, apiErrorFrom, TaskError } from './api-error.js';
import * as E from './errors.js';

interface Fixture {
  source: string;
  type: 'api' | 'task';
  status?: number;
  statusText?: string;
  body?: string;
  upid?: string;
  exitstatus?: string;
  expect: Record<string, string>;
  matchers: string[];
}

const dir = join(import.meta.dirname, '__fixtures__');
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => [f, JSON.parse(readFileSync(join(dir, f), 'utf8')) as Fixture] as const);

const MATCHERS: Record<string, (e: unknown) => boolean> = {
  isNotExist: E.isNotExist,
  isAlreadyExists: E.isAlreadyExists,
  isAgentNotConfigured: E.isAgentNotConfigured,
  isAgentNotRunning: E.isAgentNotRunning,
  isVmNotRunning: E.isVmNotRunning,
  isLocked: E.isLocked,
  isStorageLockTimeout: E.isStorageLockTimeout,
  isAlreadyRunning: E.isAlreadyRunning,
};

function errorOf(f: Fixture): Error {
  return f.type === 'api'
    ? apiErrorFrom(f.status!, f.statusText!, f.body!, 'GET', '/x')
    : new TaskError(f.upid!, f.exitstatus!);
}

describe('classify over every recorded response', () => {
  it('has fixtures', () => {
    expect(fixtures.length).toBeGreaterThan(30);
  });
  for (const [file, f] of fixtures) {
    it(`${file} (${f.source})`, () => {
      const err = errorOf(f);
      for (const [op, kind] of Object.entries(f.expect)) {
        expect(E.classify(op, err).kind, `${op}`).toBe(kind);
      }
      for (const [m, fn] of Object.entries(MATCHERS)) {
        expect(fn(err), m).toBe(f.matchers.includes(m));
      }
    });
  }
});

describe('matchers are anchored to their status', () => {
  it('the does-not-exist text under a 400 is Permanent, not NotFound', () => {
    const e = new ApiError({
      status: 400,
      statusText: 'x',
      text: "Configuration file 'nodes/a/qemu-server/100.conf' does not exist",
      method: 'GET',
      path: '/',
    });
    expect(E.isNotExist(e)).toBe(false);
    expect(E.classify('get', e).kind).toBe(ErrorKind.Permanent);
  });
  it('a 500 that only contains the words elsewhere is not matched', () => {
    const e = new ApiError({
      status: 500,
      statusText: 'x',
      text: "storage 'Configuration file' does not exist",
      method: 'GET',
      path: '/',
    });
    expect(E.isNotExist(e)).toBe(false);
    expect(E.classify('get', e).kind).toBe(ErrorKind.Transient);
  });
  it('the agent text under a 596 is not the agent answer', () => {
    const e = new ApiError({
      status: 596,
      statusText: 'QEMU guest agent is not running',
      text: '',
      method: 'GET',
      path: '/',
    });
    expect(E.isAgentNotRunning(e)).toBe(false);
  });
});

describe('classify, the non-HTTP rows', () => {
  it('keeps an existing class', () => {
    const e = transientError('x', { code: 'CLONE_LOCK_STUCK' });
    expect(E.classify('create', e)).toBe(e);
  });
  it('aborts are Transient ABORTED, timeouts Transient TIMEOUT', () => {
    const a = E.classify('get', new DOMException('x', 'AbortError'));
    expect([a.kind, a.code]).toEqual(['Transient', 'ABORTED']);
    const t = E.classify('get', new DOMException('x', 'TimeoutError'));
    expect([t.kind, t.code]).toEqual(['Transient', 'TIMEOUT']);
    expect(isAbortError(new DOMException('x', 'AbortError'))).toBe(true);
  });
  it('x509 verification failures are Permanent, wherever in the cause chain', () => {
    for (const code of [
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'CERT_HAS_EXPIRED',
      'ERR_TLS_CERT_ALTNAME_INVALID',
      'SELF_SIGNED_CERT_IN_CHAIN',
    ]) {
      const inner = Object.assign(new Error('cert'), { code });
      const e = E.classify('get', new Error('fetch failed', { cause: inner }));
      expect([e.kind, e.code], code).toEqual(['Permanent', 'CERTIFICATE_INVALID']);
    }
  });
  it('network errors are Transient UNREACHABLE; anything else Transient', () => {
    const e = E.classify('get', Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    expect([e.kind, e.code]).toEqual(['Transient', 'UNREACHABLE']);
    expect(E.classify('get', new Error('odd')).kind).toBe('Transient');
    expect(ProviderError.isInstance(E.classify('get', 'str'))).toBe(true);
  });
  it('a 401 message never carries more than status and reason', () => {
    const e = apiErrorFrom(401, 'No ticket', '', 'GET', '/version');
    expect(e.message).toBe('GET /version: 401 No ticket');
  });
  it('the pre-8.3 format takes the text from the reason phrase', () => {
    const e = apiErrorFrom(500, 'VM is locked (clone)', '{"data":null}', 'GET', '/x');
    expect(e.text).toBe('VM is locked (clone)');
    expect(E.isLocked(e)).toBe(true);
  });
});
