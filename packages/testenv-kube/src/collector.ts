import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureGoTool } from './binaries.js';
import { parseOtlpJsonLines, type StoredSpan } from './otlp-spans.js';
import { type Daemon, startDaemon, waitUntil } from './process.js';

export interface Collector {
  /** The OTLP/HTTP traces endpoint (`http://<host>:<port>/v1/traces`). */
  endpoint: string;
  /** Everything the collector stored so far. */
  spans(): StoredSpan[];
  logs(): string;
  stop(): Promise<void>;
}

/** The collector's config: OTLP over HTTP in, the file exporter out, no telemetry server of its own. */
export function collectorConfig(listen: string, file: string): string {
  return `${JSON.stringify(
    {
      receivers: { otlp: { protocols: { http: { endpoint: listen } } } },
      exporters: { file: { path: file, flush_interval: '200ms' } },
      service: {
        telemetry: { metrics: { level: 'none' }, logs: { level: 'warn' } },
        pipelines: { traces: { receivers: ['otlp'], exporters: ['file'] } },
      },
    },
    null,
    2,
  )}\n`;
}

/**
 * An OpenTelemetry Collector (tools/otelcol, built from Go modules) receiving OTLP/HTTP on
 * `host:port` and storing every span in a file the test reads back.
 */
export async function startCollector(o: {
  host: string;
  port?: number;
  dir: string;
  signal?: AbortSignal;
}): Promise<Collector> {
  const bin = await ensureGoTool('otelcol', o.signal ? { signal: o.signal } : {});
  mkdirSync(o.dir, { recursive: true });
  const file = join(o.dir, 'traces.jsonl');
  const config = join(o.dir, 'otelcol.json');
  const listen = `${o.host}:${o.port ?? 4318}`;
  writeFileSync(config, collectorConfig(listen, file));
  const daemon: Daemon = startDaemon('otelcol', bin, [`--config=${config}`], join(o.dir, 'otelcol.log'));
  const endpoint = `http://${listen}/v1/traces`;
  await waitUntil(
    'its OTLP receiver to answer',
    daemon,
    async () => {
      const r = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"resourceSpans":[]}',
      });
      return r.status === 200;
    },
    60_000,
    o.signal,
  );
  return {
    endpoint,
    spans: () => (existsSync(file) ? parseOtlpJsonLines(readFileSync(file, 'utf8')) : []),
    logs: () => daemon.tail(50),
    stop: () => daemon.stop(),
  };
}
