// The chaos run's third-party provider, loaded by the operator through a `module:` entry: a thin
// HTTP client of the test's fault cloud (fault-cloud.ts). Plain JavaScript, so the operator's
// child process imports it as any installed provider module, with no build step.
import { readFile } from 'node:fs/promises';
import {
  defineProviderFactory,
  ErrorCode,
  notFoundError,
  permanentError,
  quotaExceededError,
  transientError,
  wrapError,
} from '@egress-proxies/contract';
import { loggerOf } from '@egress-proxies/provider-utils';

export const FAULT_CLOUD_TYPE = 'faultcloud';

/** @type {import('@egress-proxies/contract').ProviderProfile} */
const PROFILE = {
  readiness: 'provisioning-window',
  createReturn: 'submit',
  deleteReturn: 'waits',
  ipSource: 'assigned-at-create',
  gcMark: 'native-labels',
  createdAt: 'backend-timestamp',
  listPartial: 'not-applicable',
  listSkipsUnreadable: false,
  quota: 'detected',
  notFound: 'status-404',
  primaryKey: 'allocated-id',
  provisioningState: 'native',
  asyncOps: 'task-handle',
  secondaryResources: 'explicit',
  credentials: 'mounted-files',
  clientKind: 'thin-client',
  timeouts: 'ctx-only',
  logging: 'tiered',
  childSpans: 'none',
  backendTest: 'wire-level-fake',
  states: ['Provisioning', 'Running'],
};

/** The `faultcloud:` block: `{url, tokenFile}`, checked the Standard Schema way. */
const configSchema = {
  '~standard': {
    version: 1,
    vendor: 'chaos',
    validate(value) {
      const issues = [];
      const v = value && typeof value === 'object' ? value : {};
      if (typeof v.url !== 'string' || !/^http:\/\/127\.0\.0\.1:\d+$/.test(v.url))
        issues.push({ path: ['url'], message: `${JSON.stringify(v.url)} is not http://127.0.0.1:PORT` });
      if (typeof v.tokenFile !== 'string' || v.tokenFile === '')
        issues.push({ path: ['tokenFile'], message: 'required: the file holding the bearer token' });
      for (const k of Object.keys(v))
        if (k !== 'url' && k !== 'tokenFile') issues.push({ path: [k], message: 'unknown key' });
      return issues.length ? { issues } : { value: { url: v.url, tokenFile: v.tokenFile } };
    },
  },
};

const BY_CLASS = {
  Transient: (m) => transientError(m, { code: ErrorCode.Transient }),
  QuotaExceeded: (m) => quotaExceededError(m, { code: ErrorCode.QuotaExceeded }),
  Permanent: (m) => permanentError(m, { code: ErrorCode.Permanent }),
};

/** An answer to the contract's classes: the body's `error.class` first, then the status. */
function classify(status, body, what) {
  const e = body?.error ?? {};
  const message = `${what}: ${e.message ?? `HTTP ${status}`}`;
  if (status === 401) return permanentError(message, { code: ErrorCode.AuthFailed });
  if (status === 404 && e.code === 'NOT_FOUND') return notFoundError(message);
  const byClass = BY_CLASS[e.class];
  if (byClass) return byClass(message);
  if (status === 429) return quotaExceededError(message);
  if (status >= 400 && status < 500) return permanentError(message, { code: ErrorCode.BackendError });
  return transientError(message, { code: ErrorCode.BackendError });
}

/** Wall-clock ms with a fraction: the fault cloud compares two times of one process by it. */
const now = () => performance.timeOrigin + performance.now();

/** Why the operator aborted a create, as the chaos run tells the causes apart. */
function abortCause(reason) {
  const text = String(reason?.message ?? reason);
  if (reason?.name === 'TimeoutError' || /deadline/.test(text)) return 'deadline';
  if (/spec of the Proxy changed/.test(text)) return 'spec-changed';
  return 'other';
}

export function createFaultCloudProvider(config, { name = FAULT_CLOUD_TYPE } = {}) {
  let closed = false;
  let creates = 0;
  /**
   * The last create of each instance name made by this process: `seq@endedAt@cause`. The next
   * create of the name hands it to the fault cloud, which learns from it when the caller saw the
   * earlier call end and why (a hung call's abort happens here, not on the cloud), so the run can
   * hold the gaps between failed creates to the configured backoff.
   */
  const lastCreate = new Map();
  const call = async (operation, opts, method, path, body, headers = {}) => {
    const log = loggerOf(opts).child({ provider: name, operation });
    const started = performance.now();
    try {
      if (closed) throw permanentError('the provider is closed', { code: ErrorCode.ProviderClosed });
      let token;
      try {
        token = (await readFile(config.tokenFile, 'utf8')).trim();
      } catch (err) {
        throw transientError(`token file ${JSON.stringify(config.tokenFile)} is unreadable (${err.code})`, {
          code: ErrorCode.CredentialsUnavailable,
        });
      }
      let res;
      try {
        res = await fetch(`${config.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...headers,
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
          ...(opts?.signal ? { signal: opts.signal } : {}),
        });
      } catch (err) {
        if (opts?.signal?.aborted) throw opts.signal.reason ?? err;
        throw transientError(`fault cloud unreachable: ${err.cause?.code ?? err.message}`, {
          code: ErrorCode.Unreachable,
        });
      }
      const text = await res.text();
      const parsed = text ? JSON.parse(text) : {};
      log.log(1, 'faultcloud call', {
        method,
        path,
        status: res.status,
        durationMs: Math.round(performance.now() - started),
        ...(body?.cloudInit !== undefined ? { cloudInitBytes: body.cloudInit.length } : {}),
      });
      if (!res.ok) throw classify(res.status, parsed, `${method} ${path}`);
      return parsed;
    } catch (err) {
      throw wrapError(name, operation, err);
    }
  };
  const toInstance = (i) => ({
    id: i.id,
    uid: i.uid,
    installation: i.installation,
    createdAt: new Date(i.createdAt),
    state: i.state ?? 'Running',
    ...(i.ip ? { ip: i.ip, port: i.port } : {}),
  });
  return {
    name,
    type: FAULT_CLOUD_TYPE,
    profile: PROFILE,
    async create(req, opts) {
      const seq = ++creates;
      const headers = {
        'x-chaos-call': `${process.pid}/${seq}@${now()}`,
        ...(lastCreate.has(req.name) ? { 'x-chaos-prev': lastCreate.get(req.name) } : {}),
      };
      // The abort listeners run together when the operator aborts: this time precedes whatever
      // the operator does next with the failure.
      let aborted;
      const onAbort = () => {
        aborted = { at: now(), cause: abortCause(opts.signal.reason) };
      };
      opts?.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const r = await call(
          'create',
          opts,
          'POST',
          '/instances',
          {
            name: req.name,
            uid: req.uid,
            installation: req.installation,
            ...(req.cloudInit !== undefined ? { cloudInit: req.cloudInit } : {}),
          },
          headers,
        );
        return r.id;
      } finally {
        opts?.signal?.removeEventListener('abort', onAbort);
        lastCreate.set(req.name, `${seq}@${aborted?.at ?? now()}@${aborted?.cause ?? ''}`);
      }
    },
    async get(id, opts) {
      return toInstance(await call('get', opts, 'GET', `/instances/${encodeURIComponent(id)}`));
    },
    async delete(id, opts) {
      try {
        await call('delete', opts, 'DELETE', `/instances/${encodeURIComponent(id)}`);
      } catch (err) {
        if (err?.kind !== 'NotFound') throw err;
      }
    },
    async listByTag(opts) {
      return (await call('listByTag', opts, 'GET', '/instances')).map(toInstance);
    },
    async check(opts) {
      try {
        await call('check', opts, 'GET', '/instances');
        return [{ target: config.url, address: config.url, ready: true, reason: 'Ready', details: {} }];
      } catch (err) {
        return [
          {
            target: config.url,
            address: config.url,
            ready: false,
            reason: 'APIError',
            message: err.message,
            details: {},
          },
        ];
      }
    },
    async close() {
      closed = true;
    },
  };
}

export const faultCloudProviderFactory = defineProviderFactory(FAULT_CLOUD_TYPE, {
  configSchema,
  create: (config, context) => {
    const provider = createFaultCloudProvider(config, { name: context.name });
    return { provider, checker: provider };
  },
});
