import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import { buildSeedIso, instanceIdFor, metaData } from '@egress-proxies/nocloud';
import { sleep } from '@egress-proxies/testenv-libvirt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acquireBootSlot,
  type BootSlot,
  bootVm,
  ensureProxyImage,
  type ProxyImage,
  type RunningVm,
} from '../src/index.js';

// One real boot of the proxy image under TCG. On a shared 2-core machine wall time says little
// (boot to agent was measured at 1.5 to 3 minutes alone, far more beside other suites), so the
// boot waits in a machine-wide boot slot and every wait inside fails on a stalled guest (no
// console output, no cloud-init stage change) rather than on a clock. The vitest limits below
// are only backstops for a harness that hangs outright.
const BOOT_TEST_MS = 60 * 60_000;
const IMAGE_BUILD_MS = 40 * 60_000;
const SLOT_WAIT_MS = 2 * 60 * 60_000;
const ECHO_GUEST_PORT = 8080;

const hostname = 'proxy-e2e';
const instanceId = instanceIdFor(hostname, `uid-${randomBytes(6).toString('hex')}`);
const marker = `marker-${randomBytes(8).toString('hex')}`;

// Squid takes this whole config; the ACL admits the user-mode network the host's requests
// arrive from (slirp rewrites forwarded connections to come from its gateway, 10.0.2.2).
const userData = `#cloud-config
write_files:
  - path: /var/lib/testenv-vm/marker
    permissions: '0644'
    content: "${marker}\\n"
  - path: /etc/squid/squid.conf
    permissions: '0644'
    content: |
      http_port 3128
      acl testnet src 10.0.2.0/24
      http_access allow testnet
      http_access deny all
      cache deny all
      visible_hostname ${hostname}
      dns_nameservers 127.0.0.1
      shutdown_lifetime 1 seconds
runcmd:
  - [ systemctl, restart, squid ]
`;

interface Echoed {
  status: number;
  body: string;
}

function viaProxy(proxyPort: number, url: string, timeoutMs = 15_000): Promise<Echoed> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: proxyPort, method: 'GET', path: url, headers: { host: new URL(url).host } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer through the proxy in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

describe('proxy VM image booted under QEMU', () => {
  let image: ProxyImage;
  let slot: BootSlot;
  let vm: RunningVm | undefined;
  let echo: Server;
  let echoPort = 0;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    const started = Date.now();
    image = await ensureProxyImage({ onLog: (l) => console.log(`[image] ${l}`) });
    console.log(`image ready in ${Date.now() - started} ms: ${image.path} (${image.sizeBytes} bytes)`);
    echo = createServer((req, res) => {
      seen.push(req.headers);
      const body = `echo ${req.method} ${req.url}`;
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    const a = echo.address();
    echoPort = typeof a === 'object' && a ? a.port : 0;
  }, IMAGE_BUILD_MS);

  beforeAll(async () => {
    const queued = Date.now();
    slot = await acquireBootSlot({
      holder: 'testenv-vm boot test',
      timeoutMs: SLOT_WAIT_MS,
      onWait: (holders) => console.log(`waiting for a guest boot slot, held by: ${holders.join('; ')}`),
    });
    console.log(`guest boot slot ${slot.index} after ${Date.now() - queued} ms`);
  }, SLOT_WAIT_MS + 60_000);

  afterAll(async () => {
    await vm?.stop();
    await slot?.release();
    await new Promise((r) => echo?.close(r));
  });

  it('has a recorded digest and a plausible size', () => {
    expect(image.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(image.sizeBytes).toBeGreaterThan(100 * 1024 * 1024);
    expect(image.path.startsWith(image.dir)).toBe(true);
  });

  it(
    'boots, runs the NoCloud seed, and proxies through Squid on host loopback',
    async () => {
      const seedIso = buildSeedIso({ userData, metaData: metaData({ instanceId, hostname }) });
      vm = await bootVm({
        image: image.path,
        seedIso,
        guestForwards: [{ guestPort: ECHO_GUEST_PORT, hostPort: echoPort }],
        bootSlot: slot,
      });
      const running = vm;
      // Failures after boot carry the console tail: that is where a guest problem shows.
      const explain = async (what: string, e: unknown) =>
        new Error(`${what}: ${(e as Error).message}\nserial console tail:\n${await running.serialTail(60)}`, {
          cause: e,
        });

      const toAgent = await running.waitForAgent();
      console.log(`boot to guest agent: ${toAgent} ms`);
      const agentAt = Date.now();

      // cloud-init writes the instance id it read from the seed; only a kernel that mounted our ISO can know it.
      const cloudInit = await running.waitForCloudInit();
      console.log(`guest agent to cloud-init done: ${Date.now() - agentAt} ms`);
      if (cloudInit.errors.length > 0) {
        throw await explain('cloud-init did not finish cleanly', new Error(cloudInit.errors.join('\n')));
      }
      expect(cloudInit.datasource).toMatch(/^DataSourceNoCloud/);
      const queried = await running.agent.exec('/usr/bin/cloud-init', ['query', 'instance_id']);
      expect(queried.exitCode).toBe(0);
      if (queried.stdout.trim() !== instanceId) {
        // ds-identify's log says which block devices and labels the kernel saw.
        const ds = await running.agent.exec('/usr/bin/tail', ['-n', '40', '/run/cloud-init/ds-identify.log']);
        throw await explain(
          `cloud-init reports instance id ${queried.stdout.trim()}, not the seed's`,
          new Error(`ds-identify:\n${ds.stdout}`),
        );
      }
      const recorded = await running.agent.exec('/bin/cat', ['/var/lib/cloud/data/instance-id']);
      expect(recorded.stdout.trim()).toBe(instanceId);

      const markerFile = await running.agent.exec('/bin/cat', ['/var/lib/testenv-vm/marker']);
      expect(markerFile.exitCode).toBe(0);
      expect(markerFile.stdout).toBe(`${marker}\n`);

      const name = await running.agent.exec('/bin/hostname', []);
      expect(name.stdout.trim()).toBe(hostname);
      const etcHostname = await running.agent.exec('/bin/cat', ['/etc/hostname']);
      expect(etcHostname.stdout.trim()).toBe(hostname);

      const nics = await running.agent.networkInterfaces();
      const ipv4 = nics
        .filter((n) => n.name !== 'lo')
        .flatMap((n) => n.ipAddresses)
        .filter((a) => a.type === 'ipv4');
      expect(ipv4.map((a) => a.address)).toContain('10.0.2.15');

      // Squid restarts in cloud-final's runcmd, which has finished; still allow it a moment to bind.
      const url = `http://${running.guestForwardAddress}:${ECHO_GUEST_PORT}/hello?m=${marker}`;
      let answer: Echoed | undefined;
      let last: unknown;
      for (const deadline = Date.now() + 90_000; Date.now() < deadline; await sleep(2000)) {
        try {
          answer = await viaProxy(running.hostProxyPort, url);
          if (answer.status === 200) break;
          last = new Error(`status ${answer.status}: ${answer.body.slice(0, 300)}`);
        } catch (e) {
          last = e;
        }
      }
      if (answer?.status !== 200) throw await explain('no 200 through the guest Squid', last);
      console.log(`guest agent to Squid answering: ${Date.now() - agentAt} ms`);
      expect(answer.body).toBe(`echo GET /hello?m=${marker}`);
      // The request reached the echo server through Squid, which announces itself in Via.
      expect(seen.at(-1)?.via).toMatch(new RegExp(`${hostname}.*squid`, 'i'));

      // Restricted user-mode networking: the forward works, the gateway's own address (which
      // unrestricted slirp maps to host loopback) does not.
      const connect = (host: string, port: number) =>
        running.agent.exec(
          '/usr/bin/timeout',
          ['15', '/bin/bash', '-c', `exec 3<>/dev/tcp/${host}/${port}`],
          {
            timeoutMs: 60_000,
          },
        );
      expect((await connect(running.guestForwardAddress, ECHO_GUEST_PORT)).exitCode).toBe(0);
      expect((await connect('10.0.2.2', echoPort)).exitCode).not.toBe(0);
    },
    BOOT_TEST_MS,
  );

  it('leaves nothing behind after stop', async () => {
    expect(vm).toBeDefined();
    const running = vm as RunningVm;
    await running.stop();
    expect(running.exit).toBeDefined();
    expect(existsSync(running.workDir)).toBe(false);
    await running.stop();
  });
});
