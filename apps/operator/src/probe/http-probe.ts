import { request as httpRequest, type IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { ProbeOutcome, ProbeRequest } from '../domain/probe.js';

export interface HttpProbeOptions {
  /** Extra CA certificates to trust for https targets (PEM). */
  ca?: string | string[];
  /** Maps the address a provider reports to the one this process can reach (tests, port-forwards). */
  resolve?: (host: string, port: number) => { host: string; port: number };
  /** Pause between attempts; 500 ms when absent. */
  retryDelayMs?: number;
  /** The most body bytes read from the target; 64 KiB when absent. */
  maxBodyBytes?: number;
}

const MAX_BODY = 64 * 1024;

/**
 * Fetches `target` through the proxy at host:port: absolute-form GET for http targets, CONNECT
 * then TLS for https ones. A 2xx answer passes. When the body is (or holds, as `ip` or `origin`)
 * an IP address, it is the egress IP the target saw. Each attempt has `timeoutMs`; `retries`
 * more attempts follow a failure.
 */
export function createHttpProbe(options: HttpProbeOptions = {}) {
  return async function probe(req: ProbeRequest, signal?: AbortSignal): Promise<ProbeOutcome> {
    const started = performance.now();
    let lastError = 'not attempted';
    for (let attempt = 0; attempt <= req.retries; attempt++) {
      if (signal?.aborted) break;
      if (attempt > 0) await delay(options.retryDelayMs ?? 500, signal);
      const budget = AbortSignal.timeout(req.timeoutMs);
      const combined = signal ? AbortSignal.any([signal, budget]) : budget;
      try {
        const { status, body } = await fetchThrough(req, options, combined);
        if (status >= 200 && status < 300) {
          const egressIP = egressFrom(body);
          return { ok: true, latencyMs: performance.now() - started, ...(egressIP ? { egressIP } : {}) };
        }
        lastError = `target answered HTTP ${status}`;
      } catch (err) {
        lastError = budget.aborted ? `timed out after ${req.timeoutMs} ms` : describe(err);
      }
    }
    return { ok: false, error: lastError, latencyMs: performance.now() - started };
  };
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}

/** The egress IP from a body that is an address, or JSON with `ip` or `origin`. */
export function egressFrom(body: string): string | undefined {
  const text = body.trim();
  if (isIP(text)) return text;
  try {
    const j = JSON.parse(text) as Record<string, unknown>;
    for (const k of ['ip', 'origin', 'address']) {
      const v = j?.[k];
      if (typeof v === 'string' && isIP(v.split(',')[0]!.trim())) return v.split(',')[0]!.trim();
    }
  } catch {
    // Not JSON: no egress IP.
  }
  return undefined;
}

function readBody(res: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    res.on('data', (c: Buffer) => {
      if (n < max) chunks.push(c.subarray(0, max - n));
      n += c.length;
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

async function fetchThrough(
  req: ProbeRequest,
  options: HttpProbeOptions,
  signal: AbortSignal,
): Promise<{ status: number; body: string }> {
  const target = new URL(req.target);
  const proxy = options.resolve ? options.resolve(req.host, req.port) : { host: req.host, port: req.port };
  const max = options.maxBodyBytes ?? MAX_BODY;
  if (target.protocol === 'http:') {
    return new Promise((resolve, reject) => {
      const r = httpRequest(
        {
          host: proxy.host,
          port: proxy.port,
          method: 'GET',
          path: target.href,
          headers: { host: target.host, 'user-agent': 'egress-proxies-probe' },
          agent: false,
          signal,
        },
        (res) => {
          readBody(res, max).then((body) => resolve({ status: res.statusCode ?? 0, body }), reject);
        },
      );
      r.on('error', reject);
      r.end();
    });
  }
  if (target.protocol !== 'https:') throw new Error(`unsupported probe target scheme ${target.protocol}`);
  const port = Number(target.port || 443);
  const hostname = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const socket = await new Promise<import('node:net').Socket>((resolve, reject) => {
    const r = httpRequest({
      host: proxy.host,
      port: proxy.port,
      method: 'CONNECT',
      path: `${target.hostname}:${port}`,
      headers: { host: `${target.hostname}:${port}` },
      agent: false,
      signal,
    });
    r.on('connect', (res, sock) => {
      if (res.statusCode !== 200) {
        sock.destroy();
        reject(new Error(`proxy refused CONNECT with HTTP ${res.statusCode}`));
      } else resolve(sock);
    });
    r.on('error', reject);
    r.end();
  });
  return new Promise((resolve, reject) => {
    const tls = tlsConnect({
      socket,
      // The identity check reads `host`; it defaults to localhost, wrong for an IP target.
      host: hostname,
      ...(isIP(hostname) ? {} : { servername: hostname }),
      ...(options.ca ? { ca: options.ca } : {}),
    });
    const onAbort = () => tls.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    const r = httpRequest(
      {
        createConnection: () => tls,
        method: 'GET',
        path: `${target.pathname}${target.search}`,
        headers: { host: target.host, 'user-agent': 'egress-proxies-probe' },
      },
      (res) => {
        readBody(res, max).then((body) => {
          signal.removeEventListener('abort', onAbort);
          tls.destroy();
          resolve({ status: res.statusCode ?? 0, body });
        }, reject);
      },
    );
    r.on('error', (err) => {
      signal.removeEventListener('abort', onAbort);
      reject(err);
    });
    r.end();
  });
}
