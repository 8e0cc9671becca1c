import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_SCRIPT, shellWord } from './relay-script.js';

describe('guest forward relay', () => {
  let dir: string;
  let server: Server;
  let port = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'testenv-vm-relay-'));
    await writeFile(join(dir, 'relay.cjs'), RELAY_SCRIPT);
    // Answers once the client has finished sending, like a request/response exchange.
    server = createServer({ allowHalfOpen: true }, (sock) => {
      const chunks: Buffer[] = [];
      sock.on('data', (d) => chunks.push(d));
      sock.on('end', () => sock.end(`echo:${Buffer.concat(chunks).toString().toUpperCase()}`));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const a = server.address();
    port = typeof a === 'object' && a ? a.port : 0;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  it('splices its stdin/stdout onto a host loopback port', async () => {
    const child = spawn(process.execPath, [join(dir, 'relay.cjs'), String(port)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stdin.end('hello through the relay');
    const code = await new Promise((r) => child.on('close', r));
    expect(out).toBe('echo:HELLO THROUGH THE RELAY');
    expect(code).toBe(0);
  });

  it('fails when nothing listens on the port', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const a = closed.address();
    await new Promise((r) => closed.close(r));
    const child = spawn(process.execPath, [
      join(dir, 'relay.cjs'),
      String(typeof a === 'object' && a ? a.port : 0),
    ]);
    const code = await new Promise((r) => child.on('close', r));
    expect(code).toBe(1);
  });

  it('quotes words so a shell-style parser gives them back unchanged', () => {
    const words = ['/usr/bin/node', "/tmp/it's here/relay.cjs", '4000'];
    const line = words.map(shellWord).join(' ');
    const r = spawnSync('sh', ['-c', `for w in ${line}; do printf '%s\\n' "$w"; done`], { encoding: 'utf8' });
    expect(r.stdout.split('\n').slice(0, -1)).toEqual(words);
  });
});
