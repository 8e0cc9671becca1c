import type { Dispatcher } from 'undici';
import { headerRecord, type RequestAuth } from './auth.js';
import type {
  AggregatedInstancesPage,
  AggregatedListParams,
  ComputeApi,
  ComputeFirewall,
  ComputeInstance,
  ComputeOperation,
  ComputeRegion,
  OperationListParams,
} from './backend.js';
import { CredentialsError } from './credentials-error.js';
import { ComputeApiError, parseErrorBody } from './errors.js';

export const DEFAULT_ENDPOINT = 'https://compute.googleapis.com';

export interface RestComputeOptions {
  project: string;
  auth: RequestAuth;
  /** Base URL; the public Compute endpoint when absent. */
  endpoint?: string;
  /** An undici dispatcher (Agent, Pool, ProxyAgent, MockAgent); undici's global one when absent. */
  dispatcher?: Dispatcher;
  /** Abort any single request after this many ms (default 30 s); the caller's signal still applies. */
  requestTimeoutMs?: number;
}

type Query = Record<string, string | number | boolean | undefined>;

/**
 * The production adapter: plain JSON over HTTPS with undici, headers from google-auth-library.
 * It keeps Compute's error body intact (see `ComputeApiError`) and sends every query parameter
 * it is given, `returnPartialSuccess` included. It does not retry: the reconciler does.
 */
export function createRestComputeApi(options: RestComputeOptions): ComputeApi {
  const base = (options.endpoint ?? DEFAULT_ENDPOINT).replace(/\/+$/, '');
  const projectPath = `/compute/v1/projects/${encodeURIComponent(options.project)}`;
  const timeoutMs = options.requestTimeoutMs ?? 30_000;

  async function call<T>(
    signal: AbortSignal | undefined,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    query: Query = {},
    body?: unknown,
  ): Promise<T> {
    signal?.throwIfAborted();
    const url = new URL(base + projectPath + path);
    for (const [k, v] of Object.entries(query)) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    let auth: Record<string, string>;
    try {
      auth = headerRecord(await options.auth.getRequestHeaders(url.href));
    } catch (err) {
      throw new CredentialsError(err);
    }
    signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    // undici is imported with the first request, so importing the provider stays cheap.
    const { request } = await import('undici');
    const res = await request(url, {
      method,
      headers: {
        ...auth,
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: combined,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    });
    const text = await res.body.text();
    if (res.statusCode >= 200 && res.statusCode < 300) {
      return (text ? JSON.parse(text) : {}) as T;
    }
    const parsed = parseErrorBody(text);
    throw new ComputeApiError({ status: res.statusCode, method, path: url.pathname, ...parsed });
  }

  const z = (zone: string) => `/zones/${encodeURIComponent(zone)}`;
  const n = encodeURIComponent;

  return {
    getInstance: (signal, zone, name) =>
      call<ComputeInstance>(signal, 'GET', `${z(zone)}/instances/${n(name)}`),
    insertInstance: (signal, zone, body, requestId) =>
      call<ComputeOperation>(signal, 'POST', `${z(zone)}/instances`, { requestId }, body),
    deleteInstance: (signal, zone, name, requestId) =>
      call<ComputeOperation>(signal, 'DELETE', `${z(zone)}/instances/${n(name)}`, { requestId }),
    aggregatedListInstances: (signal, p: AggregatedListParams) =>
      call<AggregatedInstancesPage>(signal, 'GET', '/aggregated/instances', {
        filter: p.filter,
        maxResults: p.maxResults,
        pageToken: p.pageToken,
        returnPartialSuccess: p.returnPartialSuccess,
      }),
    getZoneOperation: (signal, zone, name) =>
      call<ComputeOperation>(signal, 'GET', `${z(zone)}/operations/${n(name)}`),
    listZoneOperations: (signal, zone, p: OperationListParams) =>
      call<{ items?: ComputeOperation[]; nextPageToken?: string }>(signal, 'GET', `${z(zone)}/operations`, {
        filter: p.filter,
        maxResults: p.maxResults,
        orderBy: p.orderBy,
      }),
    getRegion: (signal, region) => call<ComputeRegion>(signal, 'GET', `/regions/${n(region)}`),
    getFirewall: (signal, name) => call<ComputeFirewall>(signal, 'GET', `/global/firewalls/${n(name)}`),
    insertFirewall: (signal, body, requestId) =>
      call<ComputeOperation>(signal, 'POST', '/global/firewalls', { requestId }, body),
  };
}
