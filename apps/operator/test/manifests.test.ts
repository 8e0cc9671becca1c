import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProvidersConfig } from '@egress-proxies/provider-utils/providers-file';
import type { KubeControlPlane } from '@egress-proxies/testenv-kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { crdFiles } from '../src/api/crd.js';
import { validateProxySpec } from '../src/api/validate.js';
import { bundledRegistry } from '../src/providers/bundled.js';
import { CONTROL_PLANE_BUDGET_MS, startClusterWithCrds } from './support/cluster.js';
import { toolEnv } from './support/helm.js';

// Every bundled provider, so each entry's block is checked by its package's schema.
const registry = await bundledRegistry();

const ROOT = join(__dirname, '..', '..', '..');
let cp: KubeControlPlane;
let dir: string;
let kubeconfig: string;
let helm: string;

function run(cmd: string, args: string[], input?: string): string {
  // Before the control plane starts (kustomize, helm template) there is no dir yet and nothing is cached.
  const r = spawnSync(cmd, args, {
    input,
    encoding: 'utf8',
    cwd: ROOT,
    ...(dir ? { env: toolEnv(dir) } : {}),
  });
  if (r.error)
    throw new Error(`${cmd} could not run (${r.error.message}); it is needed to render the manifests`);
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

const kustomize = (path: string) => run('kubectl', ['kustomize', path]);
const dryRun = (yaml: string, ns?: string) =>
  run(
    'kubectl',
    ['apply', '--dry-run=server', '--kubeconfig', kubeconfig, ...(ns ? ['-n', ns] : []), '-f', '-'],
    yaml,
  );
const objects = (yaml: string) =>
  parseAllDocuments(yaml)
    .map((d) => d.toJS() as { kind: string; metadata: { name: string; namespace?: string } } | null)
    .filter((o): o is NonNullable<typeof o> => !!o);
const ids = (yaml: string) =>
  objects(yaml)
    .map((o) => `${o.kind}/${o.metadata.name}`)
    .sort();

beforeAll(async () => {
  cp = await startClusterWithCrds();
  await cp.ensureNamespace('egress-proxies-system');
  await cp.ensureNamespace('samples');
  dir = mkdtempSync(join(tmpdir(), 'ep-manifests-'));
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, cp.kubeconfig());
  // Built from its Go module once per machine (cached), like the control plane.
  helm = execFileSync('bash', [join(__dirname, '..', 'scripts', 'ensure-helm.sh')], {
    encoding: 'utf8',
  }).trim();
}, CONTROL_PLANE_BUDGET_MS);

afterAll(async () => {
  await cp?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('kustomize manifests', () => {
  it('config/default applies cleanly with a server-side dry run', () => {
    const yaml = kustomize('config/default');
    const out = dryRun(yaml);
    expect(out).toContain('deployment.apps/egress-proxies-operator created (server dry run)');
    expect(out).toContain('customresourcedefinition.apiextensions.k8s.io/proxies.egress-proxies.dev');
    expect(
      objects(yaml).filter((o) => o.metadata.namespace && o.metadata.namespace !== 'egress-proxies-system'),
    ).toEqual([]);
  });

  it('the kubernetes provider component adds only Pod rights', () => {
    const base = ids(kustomize('config/default'));
    const withK = kustomize('config/with-kubernetes');
    expect(ids(withK).filter((i) => !base.includes(i))).toEqual([
      'ClusterRole/egress-proxies-provider-kubernetes',
      'ClusterRoleBinding/egress-proxies-provider-kubernetes',
    ]);
    expect(dryRun(withK)).toContain(
      'clusterrole.rbac.authorization.k8s.io/egress-proxies-provider-kubernetes created (server dry run)',
    );
  });

  it('every sample Proxy passes the API server and the operator validation, naming a sample provider', () => {
    const yaml = kustomize('config/samples');
    const out = dryRun(yaml, 'samples');
    const proxies = objects(yaml).filter((o) => o.kind === 'Proxy') as unknown as {
      metadata: { name: string };
      spec: unknown;
    }[];
    expect(out.match(/proxy\.egress-proxies\.dev\/\S+ created \(server dry run\)/g)).toHaveLength(
      proxies.length,
    );
    expect(proxies).toHaveLength(7);
    expect(out).toContain('secret/proxy-cloud-init created (server dry run)');
    const providers = loadProvidersConfig(
      readFileSync(join(ROOT, 'config/samples/providers-config.yaml'), 'utf8'),
      { registry },
    );
    const names = providers.map((p) => p.name);
    expect(new Set(providers.map((p) => p.type))).toEqual(
      new Set(['kvm', 'kvm2', 'proxmox', 'gcp', 'kubernetes', 'local']),
    );
    for (const p of proxies) {
      const spec = validateProxySpec(p.spec);
      if (spec.mode === 'Managed') expect(names, p.metadata.name).toContain(spec.provider);
    }
  });
});

describe('helm chart', () => {
  const template = (...set: string[]) =>
    run(helm, [
      'template',
      'egress-proxies',
      'chart',
      '-n',
      'egress-proxies-system',
      '--include-crds',
      ...set,
    ]);

  it('ships the generated CRDs unchanged', () => {
    const files = crdFiles();
    expect(readdirSync(join(ROOT, 'chart', 'files', 'crds')).sort()).toEqual(Object.keys(files).sort());
    for (const [name, text] of Object.entries(files)) {
      expect(
        readFileSync(join(ROOT, 'chart', 'files', 'crds', name), 'utf8'),
        `chart/files/crds/${name} is stale`,
      ).toBe(text);
    }
  });

  it('renders the same objects as config/default and applies cleanly with a server-side dry run', () => {
    const yaml = template();
    // The chart's PodDisruptionBudget (two replicas) has no config/default counterpart.
    expect(ids(yaml).filter((i) => !i.startsWith('PodDisruptionBudget/'))).toEqual(
      ids(kustomize('config/default')).filter((i) => i !== 'Namespace/egress-proxies-system'),
    );
    expect(dryRun(yaml)).toContain('deployment.apps/egress-proxies-operator created (server dry run)');
  });

  it('renders the providers config from values and the optional provider RBAC', () => {
    const values = join(dir, 'values.yaml');
    writeFileSync(
      values,
      `providers:\n  - name: in-cluster\n    type: kubernetes\n    kubernetes: {}\nproviderRbac:\n  kubernetes: true\n`,
    );
    const yaml = template('-f', values);
    const cm = objects(yaml).find((o) => o.kind === 'ConfigMap') as unknown as {
      data: { 'providers.yaml': string };
    };
    expect(loadProvidersConfig(cm.data['providers.yaml'], { registry }).map((p) => p.name)).toEqual([
      'in-cluster',
    ]);
    expect(ids(yaml)).toContain('ClusterRole/egress-proxies-provider-kubernetes');
    expect(dryRun(yaml)).toContain('configmap/egress-proxies-providers created (server dry run)');
  });
});
