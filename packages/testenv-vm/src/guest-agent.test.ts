import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestEnvVmError } from './errors.js';
import { createGuestAgent, type GuestAgent } from './guest-agent.js';

// A stand-in for qemu-ga on the host end of the virtio-serial socket, speaking the same
// line-delimited JSON, including the 0xFF sentinel before the answer to guest-sync-delimited.
class FakeAgent {
  silent = false;
  connections = 0;
  received: Record<string, unknown>[] = [];
  statusPolls = 0;
  server: Server;

  constructor() {
    this.server = createServer((sock) => this.serve(sock));
  }

  private serve(sock: Socket) {
    this.connections++;
    let buf = '';
    sock.on('data', (d: Buffer) => {
      // The client sends 0xFF to reset the agent's parser; the agent ignores it.
      buf += d.toString('latin1').replaceAll('\xff', '');
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!this.silent) this.answer(sock, JSON.parse(line));
      }
    });
    sock.on('error', () => undefined);
  }

  private answer(sock: Socket, req: { execute: string; arguments?: Record<string, unknown> }) {
    this.received.push(req);
    const reply = (v: unknown) => sock.write(`${JSON.stringify(v)}\n`);
    switch (req.execute) {
      case 'guest-sync-delimited':
        // Leftovers of an earlier exchange first: noise, a stale sync answer, a stale reply.
        sock.write(Buffer.from('garbage{"return": {}}\n', 'latin1'));
        sock.write(Buffer.concat([Buffer.from([0xff]), Buffer.from('{"return": 7}\n')]));
        sock.write(
          Buffer.concat([
            Buffer.from([0xff]),
            Buffer.from(`${JSON.stringify({ return: req.arguments?.id })}\n`),
          ]),
        );
        return;
      case 'guest-ping':
        return reply({ return: {} });
      case 'guest-network-get-interfaces':
        return reply({
          return: [
            {
              name: 'lo',
              'ip-addresses': [{ 'ip-address-type': 'ipv4', 'ip-address': '127.0.0.1', prefix: 8 }],
            },
            {
              name: 'eth0',
              'hardware-address': '52:54:00:12:34:56',
              'ip-addresses': [
                { 'ip-address-type': 'ipv4', 'ip-address': '10.0.2.15', prefix: 24 },
                { 'ip-address-type': 'ipv6', 'ip-address': 'fec0::5054:ff:fe12:3456', prefix: 64 },
              ],
            },
          ],
        });
      case 'guest-exec':
        return reply({ return: { pid: 4242 } });
      case 'guest-exec-status':
        this.statusPolls++;
        if (this.statusPolls < 2) return reply({ return: { exited: false } });
        return reply({
          return: {
            exited: true,
            exitcode: 3,
            'out-data': Buffer.from('hello out').toString('base64'),
            'err-data': Buffer.from('hello err').toString('base64'),
          },
        });
      default:
        return reply({
          error: { class: 'CommandNotFound', desc: `The command ${req.execute} has not been found` },
        });
    }
  }
}

describe('guest agent client', () => {
  let dir: string;
  let fake: FakeAgent;
  let agent: GuestAgent;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'testenv-vm-qga-'));
    fake = new FakeAgent();
    await new Promise<void>((r) => fake.server.listen(join(dir, 'qga.sock'), r));
    agent = createGuestAgent(join(dir, 'qga.sock'));
  });
  afterEach(async () => {
    agent.close();
    await new Promise((r) => fake.server.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  it('synchronises past stale data, then pings on the same connection', async () => {
    await agent.ping();
    await agent.ping();
    expect(fake.received.map((r) => r.execute)).toEqual(['guest-sync-delimited', 'guest-ping', 'guest-ping']);
    expect(fake.connections).toBe(1);
  });

  it('maps guest-network-get-interfaces to idiomatic fields', async () => {
    const nics = await agent.networkInterfaces();
    expect(nics[1]).toEqual({
      name: 'eth0',
      hardwareAddress: '52:54:00:12:34:56',
      ipAddresses: [
        { type: 'ipv4', address: '10.0.2.15', prefix: 24 },
        { type: 'ipv6', address: 'fec0::5054:ff:fe12:3456', prefix: 64 },
      ],
    });
    expect(nics[0]?.hardwareAddress).toBeUndefined();
  });

  it('runs guest-exec with captured output and polls guest-exec-status until exit', async () => {
    const r = await agent.exec('/bin/thing', ['a', 'b'], { input: 'stdin text' });
    expect(r).toEqual({ exitCode: 3, signal: undefined, stdout: 'hello out', stderr: 'hello err' });
    const exec = fake.received.find((q) => q.execute === 'guest-exec');
    expect(exec?.arguments).toEqual({
      path: '/bin/thing',
      arg: ['a', 'b'],
      'capture-output': true,
      'input-data': Buffer.from('stdin text').toString('base64'),
    });
    expect(fake.statusPolls).toBe(2);
  });

  it('reports an agent error with its class and keeps the connection', async () => {
    const err = await agent.call('guest-nope').catch((e: unknown) => e);
    expect(TestEnvVmError.isInstance(err) && err.code).toBe('AGENT_ERROR');
    expect((err as Error).message).toContain('CommandNotFound');
    await agent.ping();
    expect(fake.connections).toBe(1);
  });

  it('times out against a silent agent, then reconnects and resyncs once it answers', async () => {
    fake.silent = true;
    const err = await agent.ping({ timeoutMs: 300 }).catch((e: unknown) => e);
    expect(TestEnvVmError.isInstance(err) && err.code).toBe('AGENT_TIMEOUT');
    fake.silent = false;
    await agent.ping();
    expect(fake.connections).toBe(2);
  });

  it('fails with AGENT_ERROR when nothing listens on the socket', async () => {
    const other = createGuestAgent(join(dir, 'absent.sock'));
    const err = await other.ping({ timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(TestEnvVmError.isInstance(err) && err.code).toBe('AGENT_ERROR');
    expect((err as Error).message).toContain('absent.sock');
  });

  it('stops waiting at once when aborted', async () => {
    fake.silent = true;
    const ac = new AbortController();
    const pending = agent.ping({ signal: ac.signal, timeoutMs: 60_000 });
    setTimeout(() => ac.abort(new Error('stop now')), 50);
    await expect(pending).rejects.toThrow('stop now');
  });

  it('rejects a bad socket path and an empty command', async () => {
    expect(() => createGuestAgent('')).toThrow(/socketPath/);
    await expect(agent.exec('')).rejects.toThrow(/command path/);
  });
});
