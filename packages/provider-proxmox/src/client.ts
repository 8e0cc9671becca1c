import { abortReason, activeOpenTelemetry, openTelemetry } from '@egress-proxies/provider-utils';
import type { Tracer } from '@opentelemetry/api';
import type { Dispatcher } from 'undici';
import { ApiError, apiErrorFrom } from './api-error.js';
import type {
  Backend,
  CloneParams,
  ClusterResource,
  StorageContentEntry,
  StorageStatus,
  TaskListEntry,
  TaskStatus,
  VmConfig,
  VmStatus,
} from './backend.js';
import { CaFile, readToken, type Token } from './credentials.js';
import { buildIsoUpload } from './multipart.js';
import type { AgentInterface } from './state.js';

export interface HttpBackendOptions {
  /** `https://host:8006`. */
  url: string;
  tokenFile: string;
  caFile?: string;
  insecureSkipTLSVerify?: boolean;
  /** Budget of one request, from send to the last body byte. */
  requestTimeoutMs: number;
  /** Budget of the TCP dial plus the TLS handshake. Default 10 s. */
  connectTimeoutMs?: number;
  /** Keep-alive connections per host. Default 4. */
  connections?: number;
  /** Your own dispatcher (proxy, test harness); then caFile/insecureSkipTLSVerify are yours to apply. */
  dispatcher?: Dispatcher;
  tracer?: Tracer;
}

type Params = Record<string, string | number | undefined>;
interface RequestSpec {
  query?: Params;
  form?: Params;
  raw?: { body: Buffer; contentType: string };
}

const enc = encodeURIComponent;

function toQuery(p?: Params): string {
  if (!p) return '';
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(p)) if (v !== undefined) s.append(k, String(v));
  const q = s.toString();
  return q ? `?${q}` : '';
}

/**
 * The production adapter: one pooled undici Agent shared by every call and the Checker, HTTP/1.1,
 * a keep-alive limit per host, a dial+TLS budget and a per-request budget. The token file is read
 * on every request and the CA file whenever it changed (a rotated CA gets a fresh pool; the old one
 * drains). A cancelled request ends only itself.
 */
export class HttpBackend implements Backend {
  readonly #o: HttpBackendOptions;
  readonly #origin: string;
  readonly #ca: CaFile | undefined;
  readonly #tracer: Tracer | undefined;
  #agent: Dispatcher | undefined;
  #agentPem: string | undefined;
  #closed = false;

  constructor(o: HttpBackendOptions) {
    this.#o = o;
    this.#origin = new URL(o.url).origin;
    this.#ca = o.caFile ? new CaFile(o.caFile) : undefined;
    this.#tracer = o.tracer;
  }

  get origin(): string {
    return this.#origin;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const a = this.#agent;
    this.#agent = undefined;
    if (a && !this.#o.dispatcher) await a.close().catch(() => {});
  }

  async #dispatcher(): Promise<Dispatcher> {
    if (this.#o.dispatcher) return this.#o.dispatcher;
    const pem = this.#ca ? (await this.#ca.load()).pem : undefined;
    // undici is imported with the first request, so importing the provider stays cheap; the
    // check below runs after the last await, so concurrent first calls build one pool.
    const { Agent: AgentClass } = await import('undici');
    if (!this.#agent || pem !== this.#agentPem) {
      const old = this.#agent;
      this.#agentPem = pem;
      this.#agent = new AgentClass({
        connections: this.#o.connections ?? 4,
        keepAliveTimeout: 90_000,
        keepAliveMaxTimeout: 90_000,
        headersTimeout: this.#o.requestTimeoutMs,
        bodyTimeout: this.#o.requestTimeoutMs,
        connect: {
          timeout: this.#o.connectTimeoutMs ?? 10_000,
          rejectUnauthorized: !this.#o.insecureSkipTLSVerify,
          ...(pem ? { ca: pem } : {}),
        },
      });
      // In-flight requests on the old pool finish; it closes once they have.
      if (old) void old.close().catch(() => {});
    }
    return this.#agent;
  }

  /**
   * One request, retried once when it got 401 and the token file now holds another token: it was
   * rotated while the request was on its way (the old token already revoked). A 401 is answered
   * before any handler runs, so resending even a clone is safe; a 401 with the same token stands.
   */
  async #call<T>(signal: AbortSignal, method: string, path: string, spec: RequestSpec = {}): Promise<T> {
    if (this.#closed) throw new Error('proxmox client is closed');
    if (signal.aborted) throw abortReason(signal);
    const sent = await readToken(this.#o.tokenFile);
    try {
      return await this.#send<T>(signal, method, path, spec, sent);
    } catch (err) {
      if (!(ApiError.isInstance(err) && err.status === 401)) throw err;
      const now = await readToken(this.#o.tokenFile).catch(() => undefined);
      if (!now || now.header.reveal() === sent.header.reveal()) throw err;
      if (this.#closed) throw new Error('proxmox client is closed');
      return this.#send<T>(signal, method, path, spec, now);
    }
  }

  async #send<T>(
    signal: AbortSignal,
    method: string,
    path: string,
    spec: RequestSpec,
    token: Token,
  ): Promise<T> {
    if (signal.aborted) throw abortReason(signal);
    const dispatcher = await this.#dispatcher();
    const timeout = AbortSignal.timeout(this.#o.requestTimeoutMs);
    const both = AbortSignal.any([signal, timeout]);
    const fullPath = `/api2/json${path}${toQuery(spec.query)}`;
    const headers: Record<string, string> = {
      authorization: token.header.reveal(),
      accept: 'application/json',
    };
    let body: Buffer | string | undefined;
    if (spec.form) {
      body = toQuery(spec.form).slice(1);
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (spec.raw) {
      body = spec.raw.body;
      headers['content-type'] = spec.raw.contentType;
    }
    // Parent-gated: a request outside any caller span makes no root span of its own.
    // The API is loaded only when a tracer was given or an application registered one; absent,
    // requests run without spans.
    const otel = this.#tracer ? openTelemetry() : activeOpenTelemetry();
    const parent = otel?.trace.getSpan(otel.context.active());
    const span =
      otel && parent
        ? (this.#tracer ?? otel.trace.getTracer('@egress-proxies/provider-proxmox')).startSpan(
            `HTTP ${method}`,
            {
              kind: otel.SpanKind.CLIENT,
              attributes: {
                'http.request.method': method,
                'url.path': `/api2/json${path}`,
                'server.address': new URL(this.#origin).hostname,
              },
            },
            otel.context.active(),
          )
        : undefined;
    try {
      const res = await dispatcher.request({
        origin: this.#origin,
        path: fullPath,
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        signal: both,
      });
      span?.setAttribute('http.response.status_code', res.statusCode);
      const text = await res.body.text();
      if (res.statusCode >= 200 && res.statusCode < 300) {
        const parsed = text ? (JSON.parse(text) as { data?: T }) : {};
        span?.end();
        return parsed.data as T;
      }
      throw apiErrorFrom(res.statusCode, res.statusText ?? '', text, method, path);
    } catch (err) {
      let e = err;
      if (signal.aborted) e = abortReason(signal);
      else if (timeout.aborted)
        e = new DOMException(`request exceeded ${this.#o.requestTimeoutMs} ms`, 'TimeoutError');
      if (span && otel) {
        span.setStatus({ code: otel.SpanStatusCode.ERROR, message: (e as Error).message });
        span.end();
      }
      throw e;
    }
  }

  clusterResources(signal: AbortSignal): Promise<ClusterResource[]> {
    return this.#call(signal, 'GET', '/cluster/resources', { query: { type: 'vm' } });
  }
  vmConfig(signal: AbortSignal, node: string, vmid: number): Promise<VmConfig> {
    return this.#call(signal, 'GET', `/nodes/${enc(node)}/qemu/${vmid}/config`);
  }
  async setVmConfig(
    signal: AbortSignal,
    node: string,
    vmid: number,
    params: Record<string, string | number>,
  ): Promise<void> {
    await this.#call(signal, 'PUT', `/nodes/${enc(node)}/qemu/${vmid}/config`, { form: params });
  }
  vmStatus(signal: AbortSignal, node: string, vmid: number): Promise<VmStatus> {
    return this.#call(signal, 'GET', `/nodes/${enc(node)}/qemu/${vmid}/status/current`);
  }
  async agentInterfaces(signal: AbortSignal, node: string, vmid: number): Promise<AgentInterface[]> {
    const r = await this.#call<{ result?: AgentInterface[] }>(
      signal,
      'GET',
      `/nodes/${enc(node)}/qemu/${vmid}/agent/network-get-interfaces`,
    );
    return r?.result ?? [];
  }
  cloneVm(signal: AbortSignal, node: string, template: number, p: CloneParams): Promise<string> {
    return this.#call(signal, 'POST', `/nodes/${enc(node)}/qemu/${template}/clone`, {
      form: { newid: p.newid, name: p.name, description: p.description, target: p.target },
    });
  }
  resizeDisk(signal: AbortSignal, node: string, vmid: number, disk: string, size: string): Promise<string> {
    return this.#call(signal, 'PUT', `/nodes/${enc(node)}/qemu/${vmid}/resize`, { form: { disk, size } });
  }
  startVm(signal: AbortSignal, node: string, vmid: number): Promise<string> {
    return this.#call(signal, 'POST', `/nodes/${enc(node)}/qemu/${vmid}/status/start`);
  }
  stopVm(signal: AbortSignal, node: string, vmid: number): Promise<string> {
    return this.#call(signal, 'POST', `/nodes/${enc(node)}/qemu/${vmid}/status/stop`);
  }
  destroyVm(signal: AbortSignal, node: string, vmid: number): Promise<string> {
    return this.#call(signal, 'DELETE', `/nodes/${enc(node)}/qemu/${vmid}`, {
      query: { purge: 1, 'destroy-unreferenced-disks': 1 },
    });
  }
  uploadIso(
    signal: AbortSignal,
    node: string,
    storage: string,
    filename: string,
    data: Uint8Array,
  ): Promise<string> {
    return this.#call(signal, 'POST', `/nodes/${enc(node)}/storage/${enc(storage)}/upload`, {
      raw: buildIsoUpload(filename, data),
    });
  }
  deleteVolume(signal: AbortSignal, node: string, storage: string, volume: string): Promise<string | null> {
    return this.#call(signal, 'DELETE', `/nodes/${enc(node)}/storage/${enc(storage)}/content/${enc(volume)}`);
  }
  storageContent(
    signal: AbortSignal,
    node: string,
    storage: string,
    content: string,
  ): Promise<StorageContentEntry[]> {
    return this.#call(signal, 'GET', `/nodes/${enc(node)}/storage/${enc(storage)}/content`, {
      query: { content },
    });
  }
  storageStatus(signal: AbortSignal, node: string, storage: string): Promise<StorageStatus> {
    return this.#call(signal, 'GET', `/nodes/${enc(node)}/storage/${enc(storage)}/status`);
  }
  taskStatus(signal: AbortSignal, node: string, upid: string): Promise<TaskStatus> {
    return this.#call(signal, 'GET', `/nodes/${enc(node)}/tasks/${enc(upid)}/status`);
  }
  activeTasks(signal: AbortSignal, node: string, type: string): Promise<TaskListEntry[]> {
    return this.#call(signal, 'GET', `/nodes/${enc(node)}/tasks`, {
      query: { source: 'active', typefilter: type },
    });
  }
  version(signal: AbortSignal): Promise<{ version: string; release?: string }> {
    return this.#call(signal, 'GET', '/version');
  }
  nodeStatus(signal: AbortSignal, node: string): Promise<{ kversion?: string; pveversion?: string }> {
    return this.#call(signal, 'GET', `/nodes/${enc(node)}/status`);
  }
  permissions(signal: AbortSignal, path: string): Promise<Record<string, Record<string, number>>> {
    return this.#call(signal, 'GET', '/access/permissions', { query: { path } });
  }
}
