import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type KubeControlPlane, startKubeControlPlane } from '@egress-proxies/testenv-kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { CONTROL_PLANE_BUDGET_MS, waitFor } from './support/cluster.js';
import { ensureHelm, type KubeconfigDir, kubeconfigDir, toolEnv } from './support/helm.js';

// `helm install` and `helm upgrade` of the chart against a real API server: the upgrade path
// for CRDs (templates, not crds/) must carry a changed CRD into the cluster, and uninstall must
// leave the CRDs (and so every Proxy) in place.

const ROOT = join(__dirname, '..', '..', '..');
const NS = 'ep-chart-upgrade';
const CRD = 'proxies.egress-proxies.dev';
let cp: KubeControlPlane;
let helm: string;
let files: KubeconfigDir;

function helmOk(...args: string[]): string {
  const r = spawnSync(helm, [...args, '--kubeconfig', files.kubeconfig], {
    encoding: 'utf8',
    cwd: ROOT,
    env: toolEnv(files.dir),
  });
  if (r.error) throw new Error(`helm could not run (${r.error.message})`);
  if (r.status !== 0) throw new Error(`helm ${args.join(' ')} failed (${r.status}):\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

interface CrdSchema {
  spec: {
    versions: {
      schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } };
    }[];
  };
}
const specFields = (crd: CrdSchema) =>
  Object.keys(crd.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties ?? {});

async function liveCrd(): Promise<CrdSchema & { metadata: { annotations?: Record<string, string> } }> {
  const r = await cp.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`);
  if (r.status !== 200) throw new Error(`GET CRD ${CRD}: ${r.status} ${r.body}`);
  return r.json();
}

beforeAll(async () => {
  cp = await startKubeControlPlane();
  files = kubeconfigDir(cp, 'ep-chart-upgrade-');
  helm = ensureHelm();
}, CONTROL_PLANE_BUDGET_MS);

afterAll(async () => {
  await cp?.stop();
  files?.remove();
});

describe('helm install, upgrade with a changed CRD, uninstall', () => {
  it('installs the CRDs, applies a new optional CRD field on upgrade, and keeps the CRDs on uninstall', async () => {
    helmOk('install', 'ep', join(ROOT, 'chart'), '-n', NS, '--create-namespace');
    const installed = await liveCrd();
    expect(specFields(installed)).not.toContain('upgradeNote');
    expect(installed.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');

    // The next chart version: one new optional field in the Proxy spec, nothing else.
    const next = join(files.dir, 'chart');
    cpSync(join(ROOT, 'chart'), next, { recursive: true });
    const file = join(next, 'files', 'crds', 'egress-proxies.dev_proxies.yaml');
    const crd = parse(readFileSync(file, 'utf8')) as CrdSchema;
    for (const v of crd.spec.versions) {
      v.schema.openAPIV3Schema.properties.spec.properties.upgradeNote = { type: 'string', maxLength: 64 };
    }
    writeFileSync(file, stringify(crd));
    const chartYaml = join(next, 'Chart.yaml');
    writeFileSync(chartYaml, readFileSync(chartYaml, 'utf8').replace(/^version: .*$/m, 'version: 99.0.0'));

    helmOk('upgrade', 'ep', next, '-n', NS);
    await waitFor('the upgraded CRD schema', async () => specFields(await liveCrd()).includes('upgradeNote'));
    expect(helmOk('history', 'ep', '-n', NS, '-o', 'json')).toContain('"chart":"egress-proxies-99.0.0"');

    // A Proxy using the new field is accepted by the API server's validation.
    await cp.ensureNamespace('team');
    const created = await cp.request('POST', '/apis/egress-proxies.dev/v1alpha1/namespaces/team/proxies', {
      apiVersion: 'egress-proxies.dev/v1alpha1',
      kind: 'Proxy',
      metadata: { name: 'kept' },
      spec: { mode: 'External', address: 'squid.example.internal:3128', upgradeNote: 'after upgrade' },
    });
    expect(created.status, created.body).toBe(201);

    helmOk('uninstall', 'ep', '-n', NS);
    const deployment = await cp.request(
      'GET',
      `/apis/apps/v1/namespaces/${NS}/deployments/ep-egress-proxies-operator`,
    );
    expect(deployment.status).toBe(404);
    expect(specFields(await liveCrd())).toContain('upgradeNote');
    expect(
      (await cp.request('GET', '/apis/egress-proxies.dev/v1alpha1/namespaces/team/proxies/kept')).status,
    ).toBe(200);
  });
});
