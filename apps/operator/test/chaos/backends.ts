import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { instanceName } from '@egress-proxies/contract';
import { FakeCompute } from '@egress-proxies/provider-gcp/test';
import { type FakeSetup, startFakeSetup } from '@egress-proxies/provider-proxmox/test';
import { stringify } from 'yaml';
import { startEchoServer } from '../support/forward-proxy.js';
import { LocalBackend } from '../support/local-backend.js';
import { FaultCloud } from './fault-cloud.js';

export const PROVIDERS = ['pve', 'gce', 'local', 'fault'] as const;
export type ChaosProvider = (typeof PROVIDERS)[number];

const GCE_ZONE = 'us-central1-a';
const GCE_IMAGE = 'projects/debian-cloud/global/images/family/debian-12';
const PVE_TOKEN = 'root@pam!operator';

/** What one backend holds at the end, counted from the backend's own state. */
export interface Inventory {
  provider: ChaosProvider;
  /** Instances by name. */
  names: Map<string, number>;
  /** Secondary resources (disks, seed ISOs, runtime files, placeholders) no instance holds. */
  leaked: string[];
}

/**
 * The four backends of the chaos run, all outliving the operator processes: the Proxmox and
 * Compute Engine wire-level fakes and the fault cloud served by this process, and the local
 * provider's processes and state directory. Also the credentials they take and their rotation.
 */
export class ChaosBackends {
  pve!: FakeSetup;
  gce!: FakeCompute;
  cloud = new FaultCloud();
  echo!: Awaited<ReturnType<typeof startEchoServer>>;
  readonly local: LocalBackend;
  readonly gceKeyFile: string;
  readonly cloudTokenFile: string;
  /** Every credential handed out, to look for in logs. */
  readonly secrets: string[] = [];
  #gceAccount = 0;

  constructor(readonly dir: string) {
    this.local = new LocalBackend(join(dir, 'local'));
    this.gceKeyFile = join(dir, 'gce-key.json');
    this.cloudTokenFile = join(dir, 'cloud-token');
  }

  async start(): Promise<void> {
    this.pve = await startFakeSetup({ nodes: ['pve1', 'pve2'], taskMs: { qmclone: 300, qmstart: 100 } });
    this.secrets.push(readFileSync(this.pve.tokenFile, 'utf8').trim().split('=').pop()!);
    this.gce = await FakeCompute.start({
      requireAuth: true,
      clock: 'real',
      zones: [GCE_ZONE],
      timings: { stagingAfterMs: 300, runningAfterMs: 800, insertDoneAfterMs: 300, deleteAfterMs: 300 },
    });
    this.#writeGceKey();
    await this.cloud.start();
    this.#writeCloudToken();
    mkdirSync(this.local.stateDir, { recursive: true });
    this.echo = await startEchoServer();
  }

  #writeGceKey(): void {
    const email = `chaos-${++this.#gceAccount}@${this.gce.project}.iam.gserviceaccount.com`;
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    this.gce.registerServiceAccount(email, publicKey.export({ type: 'spki', format: 'pem' }).toString());
    // A line from inside the key: no log line may ever carry it.
    this.secrets.push(pem.split('\n')[2]!);
    writeFileSync(
      this.gceKeyFile,
      JSON.stringify({
        type: 'service_account',
        project_id: this.gce.project,
        private_key_id: randomBytes(20).toString('hex'),
        private_key: pem,
        client_email: email,
        client_id: '1',
        token_uri: this.gce.tokenUrl,
      }),
    );
  }

  #writeCloudToken(): string {
    const token = `cloud-${randomBytes(16).toString('hex')}`;
    this.cloud.tokens.add(token);
    this.secrets.push(token);
    writeFileSync(this.cloudTokenFile, `${token}\n`);
    return token;
  }

  /**
   * The providers file the operator replicas read (the fault cloud through `module:`, its creates
   * under their own deadline, `faultCreateTimeout`, as a provider entry's `createTimeout`).
   */
  providersConfig(
    modulePath: string,
    localPorts: { min: number; max: number },
    faultCreateTimeout: string,
  ): string {
    const { url, tokenFile, caFile, nodes, isoStorage, templates, machineTypes } = this.pve.config as Record<
      string,
      unknown
    >;
    return stringify([
      {
        name: 'pve',
        type: 'proxmox',
        proxmox: { url, tokenFile, caFile, nodes, isoStorage, templates, machineTypes },
      },
      {
        name: 'gce',
        type: 'gcp',
        gcp: { project: this.gce.project, endpoint: this.gce.url, zones: [GCE_ZONE] },
      },
      this.local.providerEntry(localPorts),
      {
        name: 'fault',
        type: 'faultcloud',
        module: modulePath,
        createTimeout: faultCreateTimeout,
        faultcloud: { url: this.cloud.url, tokenFile: this.cloudTokenFile },
      },
    ]);
  }

  /** The spec of a Proxy on `provider`; cloud-init carries `sentinel`. */
  spec(provider: ChaosProvider, i: number, sentinel: string): Record<string, unknown> {
    const cloudInit = { inline: `#cloud-config\n# ${sentinel}\n` };
    switch (provider) {
      case 'pve':
        return {
          provider,
          cloudInit,
          placement: { zone: `pve${(i % 2) + 1}`, machineType: 'small', image: 'debian' },
        };
      case 'gce':
        return {
          provider,
          cloudInit,
          placement: { zone: GCE_ZONE, machineType: 'e2-small', image: GCE_IMAGE },
        };
      case 'local':
        return { provider, probe: { target: this.echo.url, interval: '30s', timeout: '5s', retries: 1 } };
      case 'fault':
        return { provider, cloudInit };
    }
  }

  /**
   * Rotates the proxmox API token and the fault cloud's token: the new one is written where the
   * provider reads it, and the old one is revoked on the backend `revokeAfterMs` later.
   */
  async rotateCredentials(revokeAfterMs: number): Promise<void> {
    const line = this.pve.fake.addToken('root@pam!rotated');
    this.secrets.push(line.split('=').pop()!);
    writeFileSync(this.pve.tokenFile, `${line}\n`);
    const oldCloud = readFileSync(this.cloudTokenFile, 'utf8').trim();
    this.#writeCloudToken();
    await new Promise((r) => setTimeout(r, revokeAfterMs));
    this.pve.fake.revokeToken(PVE_TOKEN);
    this.cloud.tokens.delete(oldCloud);
  }

  /** What each backend holds, by instance name, with what no instance holds. */
  inventory(): Inventory[] {
    return [this.#pveInventory(), this.#gceInventory(), this.#localInventory(), this.#cloudInventory()];
  }

  #pveInventory(): Inventory {
    const names = new Map<string, number>();
    const leaked: string[] = [];
    for (const vm of this.pve.fake.vms.values()) {
      if (Number(vm.config.template) === 1) continue;
      const name = typeof vm.config.name === 'string' ? vm.config.name : undefined;
      if (!name) leaked.push(`nameless VM ${vm.vmid} (lock ${vm.config.lock ?? 'none'})`);
      else names.set(name, (names.get(name) ?? 0) + 1);
    }
    for (const node of this.pve.fake.nodes) {
      for (const volume of this.pve.fake.volumes(node, 'local').keys()) {
        const m = /^iso\/(.+)-seed\.iso$/.exec(volume);
        if (m && !names.has(m[1]!)) leaked.push(`seed ${node}/${volume}`);
      }
    }
    return { provider: 'pve', names, leaked };
  }

  #gceInventory(): Inventory {
    const names = new Map<string, number>();
    for (const i of this.gce.allInstances()) names.set(i.name!, (names.get(i.name!) ?? 0) + 1);
    const leaked = this.gce
      .disks()
      .filter((d) => !names.has(d.instance))
      .map((d) => `disk ${d.zone}/${d.name}`);
    return { provider: 'gce', names, leaked };
  }

  #localInventory(): Inventory {
    const recorded = this.local.records();
    const names = new Map([...recorded.keys()].map((name) => [name, 1]));
    const leaked: string[] = [];
    // Every proxy process of this state dir: one per recorded instance, the recorded one, and
    // none besides.
    for (const [name, pids] of this.local.processes()) {
      for (const pid of pids) if (recorded.get(name) !== pid) leaked.push(`process ${pid} in ${name}`);
    }
    for (const [name, pid] of recorded) {
      if (pid && !existsSync(`/proc/${pid}`)) leaked.push(`${name}: recorded pid ${pid} is not running`);
    }
    return { provider: 'local', names, leaked };
  }

  #cloudInventory(): Inventory {
    const names = new Map<string, number>();
    for (const i of this.cloud.machines()) names.set(i.name, (names.get(i.name) ?? 0) + 1);
    const leaked = [...this.cloud.disks].filter((d) => !names.has(d)).map((d) => `disk ${d}`);
    return { provider: 'fault', names, leaked };
  }

  async stop(): Promise<void> {
    this.local.kill();
    await Promise.allSettled([this.pve?.close(), this.gce?.close(), this.cloud.stop(), this.echo?.stop()]);
  }
}

/** The backend instance name of a Proxy in the chaos namespace. */
export const backendName = (ns: string, name: string) => instanceName(ns, name);
