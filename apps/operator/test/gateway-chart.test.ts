import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

// The chart's gateway templates (templates/gateway.yaml), rendered by the real helm.
const chart = join(import.meta.dirname, '..', '..', '..', 'chart');
let helm: string;

beforeAll(() => {
  helm = execFileSync('bash', [join(import.meta.dirname, '..', 'scripts', 'ensure-helm.sh')], {
    encoding: 'utf8',
  }).trim();
}, 45 * 60_000);

const render = (...set: string[]) =>
  spawnSync(
    helm,
    ['template', 'x', chart, '-n', 'egress-proxies-system', ...set.flatMap((s) => ['--set', s])],
    {
      encoding: 'utf8',
    },
  );

type Doc = { kind: string; metadata: { name: string; namespace: string }; spec?: Record<string, unknown> };

describe('chart: gateway', () => {
  it('renders nothing for gateways by default', () => {
    const r = render();
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('component: gateway');
  });

  it('renders a Deployment, Service and reader rights per pool, with auth from the users Secret', () => {
    const r = render(
      'gateways[0].pool=crawl',
      'gateways[0].namespace=team-a',
      'gateways[0].usersSecret=crawl-users',
      'gateways[0].selection=least-connections',
      'gateways[0].banStatuses={403,429,503}',
    );
    expect(r.status, r.stderr).toBe(0);
    const docs = parseAllDocuments(r.stdout)
      .map((d) => d.toJS() as Doc)
      .filter((d) => d?.metadata?.name === 'crawl-gateway');
    expect(docs.map((d) => d.kind).sort()).toEqual([
      'Deployment',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ]);
    for (const d of docs) expect(d.metadata.namespace).toBe('team-a');
    const dep = docs.find((d) => d.kind === 'Deployment') as unknown as {
      spec: {
        template: {
          spec: {
            containers: { args: string[]; env?: { name: string; valueFrom?: unknown }[] }[];
            volumes: { secret?: { secretName: string } }[];
          };
        };
      };
    };
    const args = dep.spec.template.spec.containers[0]?.args ?? [];
    expect(args).toEqual(
      expect.arrayContaining([
        'gateway',
        '--pool=team-a/crawl',
        '--listen=0.0.0.0:8080',
        '--users-dir=/etc/egress-proxies/gateway-users',
        '--selection=least-connections',
        '--ban-statuses=403,429,503',
      ]),
    );
    // The replica's Pod through the downward API: the owner of its load Lease.
    expect(dep.spec.template.spec.containers[0]?.env).toEqual([
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'POD_UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
    ]);
    // Only what the gateway reads and marks: the pool itself (read), its member Proxies, and its
    // own load Lease (an autoscaled pool).
    const role = docs.find((d) => d.kind === 'Role') as unknown as { rules: unknown[] };
    expect(role.rules).toEqual([
      { apiGroups: ['egress-proxies.dev'], resources: ['proxies'], verbs: ['get', 'list', 'patch'] },
      {
        apiGroups: ['egress-proxies.dev'],
        resources: ['proxypools'],
        resourceNames: ['crawl'],
        verbs: ['get'],
      },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'patch'] },
    ]);
    expect(dep.spec.template.spec.volumes[0]?.secret?.secretName).toBe('crawl-users');
  });

  it('refuses a bad entry through the values schema', () => {
    const r = render('gateways[0].pool=crawl', 'gateways[0].usersSecret=u', 'gateways[0].selection=first');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('selection');
  });

  it('refuses a gateway without users, naming the pool', () => {
    const r = render('gateways[0].pool=crawl');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(
      'gateways[crawl].usersSecret: a gateway outside loopback needs Basic auth users',
    );
  });
});
