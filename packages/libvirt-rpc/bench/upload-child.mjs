// Uploads one file into one volume in a fresh process, so its peak RSS is the upload's alone.
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { connectSsh, connectUnix } from '../dist/index.js';

const cfg = JSON.parse(process.env.BENCH_UPLOAD ?? '{}');
const size = statSync(cfg.file).size;
const client =
  cfg.mode === 'ssh'
    ? await connectSsh({
        host: cfg.ssh.host,
        port: cfg.ssh.port,
        username: cfg.ssh.username,
        privateKey: readFileSync(cfg.ssh.privateKeyPath),
        knownHostsPath: cfg.ssh.knownHostsPath,
        socketPath: cfg.socketPath,
      })
    : await connectUnix(cfg.socketPath);
const pool = await client.storagePoolLookupByName(cfg.pool);
const vol = await client.storageVolLookupByName(pool, cfg.vol);
const t0 = performance.now();
await client.storageVolUpload(
  vol,
  createReadStream(cfg.file, { highWaterMark: cfg.readChunk ?? 1024 * 1024 }),
  {
    length: size,
    ...(cfg.chunkSize ? { chunkSize: cfg.chunkSize } : {}),
    ...(cfg.maxBufferedBytes ? { maxBufferedBytes: cfg.maxBufferedBytes } : {}),
  },
);
const ms = performance.now() - t0;
await client.close();
const cpu = process.cpuUsage();
process.stdout.write(
  `${JSON.stringify({ ms, bytes: size, maxRssMiB: process.resourceUsage().maxRSS / 1024, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`,
);
