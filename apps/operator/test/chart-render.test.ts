import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadProvidersConfig } from '@egress-proxies/provider-utils/providers-file';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { crdFiles } from '../src/api/crd.js';
import { validateProxySpec } from '../src/api/validate.js';
import { parseRunFlags } from '../src/commands/run-flags.js';
import { bundledRegistry } from '../src/providers/bundled.js';
import { chartNotes, ensureHelm } from './support/helm.js';

// Every bundled provider, so each entry's block is checked by its package's schema.
const registry = await bundledRegistry();

// The chart as a Helm user meets it, rendered by a real helm (built from its Go module) and
// compared with the kustomize install, without a cluster.

const ROOT = join(__dirname, '..', '..', '..');
const NS = 'egress-proxies-system';
let helm: string;
let dir: string;

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  // biome-ignore lint/suspicious/noExplicitAny: rendered manifests are free-form
  [k: string]: any;
}

function run(cmd: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: ROOT });
  if (r.error) throw new Error(`${cmd} could not run (${r.error.message})`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
function ok(cmd: string, args: string[]): string {
  const r = run(cmd, args);
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stderr}${r.stdout}`);
  return r.stdout;
}
const objects = (yaml: string): Obj[] =>
  parseAllDocuments(yaml)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => !!o);
const template = (release: string, ...set: string[]) =>
  objects(ok(helm, ['template', release, 'chart', '-n', NS, ...set]));
const kustomize = (path: string) => objects(ok('kubectl', ['kustomize', path]));
const id = (o: Obj) => `${o.kind}/${o.metadata.name}`;
const find = (objs: Obj[], kind: string) => {
  const o = objs.find((x) => x.kind === kind);
  if (!o) throw new Error(`no ${kind} in ${objs.map(id).join(', ')}`);
  return o;
};

// Labels Helm adds for its own bookkeeping; everything else must match config/default.
const HELM_ONLY = [
  'app.kubernetes.io/instance',
  'app.kubernetes.io/version',
  'app.kubernetes.io/managed-by',
  'helm.sh/chart',
];
function withoutHelmKeys(m: Record<string, string> | undefined) {
  return Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => !HELM_ONLY.includes(k)));
}

/** One object reduced to what decides its behaviour; the operator's args read by its own parser. */
function normalise(o: Obj): unknown {
  const c = structuredClone(o);
  delete c.metadata.labels;
  delete c.metadata.annotations;
  if (c.kind === 'ConfigMap')
    c.data = { providers: loadProvidersConfig(c.data['providers.yaml'], { registry }) };
  if (c.spec?.selector?.matchLabels)
    c.spec.selector.matchLabels = withoutHelmKeys(c.spec.selector.matchLabels);
  else if (c.kind === 'Service') c.spec.selector = withoutHelmKeys(c.spec.selector);
  const pod = c.spec?.template;
  if (pod) {
    delete pod.metadata.labels;
    for (const ctr of pod.spec.containers) {
      ctr.args = parseRunFlags(ctr.args.slice(1), { POD_NAMESPACE: NS });
      delete ctr.image;
      delete ctr.imagePullPolicy;
    }
  }
  return c;
}

beforeAll(() => {
  helm = ensureHelm();
  dir = mkdtempSync(join(tmpdir(), 'ep-chart-'));
}, 45 * 60_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('helm chart, rendered', () => {
  it('passes helm lint --strict with the defaults, one replica, and every optional part on', () => {
    for (const set of [
      [],
      ['--set', 'replicas=1'],
      ['--set', 'metrics.serviceMonitor.enabled=true,crds.install=false'],
    ]) {
      const out = ok(helm, ['lint', '--strict', 'chart', ...set]);
      expect(out, set.join(' ')).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  });

  it('renders the objects config/default applies, setting for setting', () => {
    const chart = template('egress-proxies');
    const kust = kustomize('config/default').filter((o) => o.kind !== 'Namespace');
    // The chart adds a PodDisruptionBudget for its two replicas; config/default has none.
    const chartCore = chart.filter((o) => o.kind !== 'PodDisruptionBudget');
    expect(chartCore.map(id).sort()).toEqual(kust.map(id).sort());
    const byId = new Map(kust.map((o) => [id(o), o]));
    for (const o of chartCore) expect(normalise(o), id(o)).toEqual(normalise(byId.get(id(o)) as Obj));
  });

  it('scopes names and selectors to the release, so two releases side by side do not collide', () => {
    const a = template('alpha');
    const b = template('beta', '--set', 'crds.install=false');
    const namesA = new Set(a.map(id));
    expect(b.map(id).filter((n) => namesA.has(n))).toEqual([]);
    expect(a.map(id)).toContain('Deployment/alpha-egress-proxies-operator');
    for (const objs of [a, b]) {
      for (const o of objs.filter((x) => x.kind !== 'CustomResourceDefinition')) {
        expect(o.metadata.labels?.['app.kubernetes.io/instance'], id(o)).toBe(objs === a ? 'alpha' : 'beta');
      }
    }
    const deploy = find(b, 'Deployment');
    expect(deploy.spec.selector.matchLabels['app.kubernetes.io/instance']).toBe('beta');
    expect(find(b, 'Service').spec.selector['app.kubernetes.io/instance']).toBe('beta');
    // Each release leads with its own Lease, and binds its own ServiceAccount.
    expect(parseRunFlags(deploy.spec.template.spec.containers[0].args.slice(1)).leaseName).toBe(
      'beta-egress-proxies-operator',
    );
    const binding = b.find((o) => o.kind === 'ClusterRoleBinding') as Obj;
    expect(binding.subjects[0]).toEqual({
      kind: 'ServiceAccount',
      name: 'beta-egress-proxies-operator',
      namespace: NS,
    });
    expect(binding.roleRef.name).toBe('beta-egress-proxies-operator');
  });

  it('fails helm install on bad values with a message naming the field', () => {
    const cases: [string, RegExp][] = [
      ['replicas=0', /at '\/replicas': minimum: got 0, want 1/],
      ['operator.logLevel=loud', /at '\/operator\/logLevel': value must be one of 'fatal', 'error'/],
      ['operator.gcInterval=5 minutes', /at '\/operator\/gcInterval': '5 minutes' does not match pattern/],
      ['credentials.gcpKey=../key.json', /at '\/credentials\/gcpKey': '..\/key.json' does not match pattern/],
      ['image.pullPolicy=Sometimes', /at '\/image\/pullPolicy': value must be one of 'Always'/],
      ['metrics.port=70000', /at '\/metrics\/port': maximum: got 70,000, want 65,535/],
      ['operator.workerz=4', /at '\/operator': additional properties 'workerz' not allowed/],
    ];
    for (const [set, message] of cases) {
      const r = run(helm, ['template', 'x', 'chart', '--set', set]);
      expect(r.status, set).not.toBe(0);
      expect(r.stderr, set).toMatch(/values don't meet the specifications of the schema/);
      expect(r.stderr, set).toMatch(message);
    }
  });

  it('suggests creating a Proxy in its NOTES only when a provider is configured, naming it', () => {
    // What `helm install` prints.
    const notes = (...set: string[]) => chartNotes(dir, 'egress-proxies', NS, set);
    const none = notes();
    expect(none).toContain('No providers are configured yet, so no Managed Proxy can be created.');
    expect(none).not.toMatch(/kubectl apply/);
    const values = join(dir, 'notes-values.yaml');
    writeFileSync(values, 'providers:\n- name: in-cluster\n  type: kubernetes\n  kubernetes: {}\n');
    const some = notes('-f', values);
    expect(some).not.toContain('No providers are configured yet');
    const line = /^ {2}(echo '.*' \| kubectl apply -f -)$/m.exec(some)?.[1];
    expect(line, some).toBeDefined();
    // The object it applies is a Proxy on the configured provider, valid by the CRD's rules.
    const doc = JSON.parse(/^echo '(.*)'/.exec(line as string)?.[1] as string);
    expect(doc).toMatchObject({ kind: 'Proxy', spec: { provider: 'in-cluster' } });
    expect(() => validateProxySpec(doc.spec)).not.toThrow();
  });

  it('adds a PodDisruptionBudget only when there is more than one replica', () => {
    const pdb = find(template('egress-proxies'), 'PodDisruptionBudget');
    expect(pdb.spec).toEqual({
      maxUnavailable: 1,
      selector: { matchLabels: find(template('egress-proxies'), 'Deployment').spec.selector.matchLabels },
    });
    expect(template('egress-proxies', '--set', 'replicas=1').map((o) => o.kind)).not.toContain(
      'PodDisruptionBudget',
    );
  });

  it('renders an optional ServiceMonitor that selects the metrics Service', () => {
    expect(template('egress-proxies').map((o) => o.kind)).not.toContain('ServiceMonitor');
    const objs = template(
      'egress-proxies',
      '--set',
      'metrics.serviceMonitor.enabled=true,metrics.serviceMonitor.labels.release=prom',
    );
    const sm = find(objs, 'ServiceMonitor');
    const svc = find(objs, 'Service');
    expect(sm.metadata.labels?.release).toBe('prom');
    for (const [k, v] of Object.entries(sm.spec.selector.matchLabels))
      expect(svc.metadata.labels?.[k], k).toBe(v);
    expect(sm.spec.endpoints).toEqual([{ port: 'http', path: '/metrics', interval: '30s' }]);
  });

  it('passes scheduling, pull secrets, annotations and resources through to the Pod', () => {
    const values = join(dir, 'scheduling.yaml');
    writeFileSync(
      values,
      `imagePullSecrets: [{name: regcred}]
podAnnotations: {prometheus.io/scrape: "true"}
podLabels: {team: crawl}
nodeSelector: {kubernetes.io/os: linux}
tolerations: [{key: dedicated, operator: Equal, value: proxies, effect: NoSchedule}]
affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: pool, operator: In, values: [ops]}]}]}}}
resources: {requests: {cpu: 100m, memory: 256Mi}, limits: {memory: 512Mi}}
`,
    );
    const pod = find(template('egress-proxies', '-f', values), 'Deployment').spec.template;
    const given = parse(readFileSync(values, 'utf8'));
    expect(pod.spec.imagePullSecrets).toEqual(given.imagePullSecrets);
    expect(pod.metadata.annotations).toEqual(given.podAnnotations);
    expect(pod.metadata.labels.team).toBe('crawl');
    expect(pod.spec.nodeSelector).toEqual(given.nodeSelector);
    expect(pod.spec.tolerations).toEqual(given.tolerations);
    expect(pod.spec.affinity).toEqual(given.affinity);
    expect(pod.spec.containers[0].resources).toEqual(given.resources);
  });

  it('points GOOGLE_APPLICATION_CREDENTIALS at the key inside the mounted gcp Secret', () => {
    const pod = find(template('egress-proxies', '--set', 'credentials.gcpKey=sa.json'), 'Deployment').spec
      .template.spec;
    const ctr = pod.containers[0];
    const env = ctr.env.find((e: { name: string }) => e.name === 'GOOGLE_APPLICATION_CREDENTIALS');
    const mount = ctr.volumeMounts.find((m: { name: string }) => m.name === 'gcp-credentials');
    expect(pod.volumes.find((v: { name: string }) => v.name === 'gcp-credentials').secret).toEqual({
      secretName: 'gcp-credentials',
      optional: true,
    });
    expect(env.value).toBe(`${mount.mountPath}/sa.json`);
    // Without a key Secret (workload identity), neither the mount nor the variable is there.
    const bare = find(template('egress-proxies', '--set', 'credentials.gcpSecret='), 'Deployment').spec
      .template.spec;
    expect(bare.volumes.map((v: { name: string }) => v.name)).not.toContain('gcp-credentials');
    expect(bare.containers[0].env.map((e: { name: string }) => e.name)).not.toContain(
      'GOOGLE_APPLICATION_CREDENTIALS',
    );
  });

  it('renders the generated CRDs as templates kept on uninstall, or none when a second release opts out', () => {
    const crds = template('egress-proxies').filter((o) => o.kind === 'CustomResourceDefinition');
    const generated = Object.values(crdFiles()).map((t) => parse(t) as Obj);
    expect(crds.map(id).sort()).toEqual(generated.map(id).sort());
    for (const crd of crds) {
      expect(crd.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
      const source = generated.find((g) => g.metadata.name === crd.metadata.name) as Obj;
      expect(crd.spec, crd.metadata.name).toEqual(source.spec);
    }
    expect(template('b', '--set', 'crds.install=false').map((o) => o.kind)).not.toContain(
      'CustomResourceDefinition',
    );
  });
});
