import { type CreateRequest, ErrorCode, isPermanent, type ProviderError } from '@egress-proxies/contract';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parseKubernetesConfig } from './config.js';
import { buildPod, SQUID_CONF_ENV } from './pod.js';

const req: CreateRequest = {
  name: 'proxy-0123456789abcdef',
  namespace: 'team-a',
  proxyName: 'egress',
  uid: '6f1c1f7e-1111-4222-8333-944445555666',
  port: 3128,
  cloudInit: '#cloud-config\npassword: hunter2-secret',
  placement: { zone: 'eu-west-1a' },
  installation: 'inst-1',
  owner: { apiVersion: 'egress.dev/v1alpha1', kind: 'Proxy', name: 'egress', uid: 'owner-uid' },
};
const cfg = parseKubernetesConfig({ allowedSourceCIDRs: ['10.0.0.0/8'] });

function container(pod: V1Pod): V1Container {
  const cs = pod.spec?.containers ?? [];
  expect(cs).toHaveLength(1);
  return cs[0]!;
}

function catchErr(fn: () => unknown): ProviderError {
  try {
    fn();
  } catch (err) {
    return err as ProviderError;
  }
  throw new Error('expected a throw');
}

describe('buildPod', () => {
  const pod = buildPod(req, cfg);
  const c = container(pod);

  it('names the Pod after the request and puts it in the Proxy namespace', () => {
    expect(pod.metadata?.name).toBe(req.name);
    expect(pod.metadata?.namespace).toBe('team-a');
  });

  it('writes the managed, uid and installation labels', () => {
    expect(pod.metadata?.labels).toMatchObject({
      'proxy-operator-managed': 'true',
      'proxy-operator-uid': req.uid,
      'proxy-operator-installation': 'inst-1',
    });
    expect(pod.metadata?.annotations?.['egress-proxies.dev/proxy']).toBe('team-a/egress');
  });

  it('runs as non-root with every capability dropped, read-only root and RuntimeDefault seccomp', () => {
    expect(pod.spec?.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 13,
      runAsGroup: 13,
      fsGroup: 13,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(c.securityContext).toEqual({
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(c.securityContext?.capabilities?.add).toBeUndefined();
  });

  it('mounts emptyDirs for the run directory, cache and logs, and nothing else', () => {
    expect(c.volumeMounts).toEqual([
      { name: 'run', mountPath: '/run/squid' },
      { name: 'cache', mountPath: '/var/spool/squid' },
      { name: 'logs', mountPath: '/var/log/squid' },
    ]);
    for (const v of pod.spec?.volumes ?? []) {
      expect(Object.keys(v).sort()).toEqual(['emptyDir', 'name']);
    }
    expect(pod.spec?.volumes?.map((v) => v.name)).toEqual(['run', 'cache', 'logs']);
  });

  it('mounts no service-account token and injects no service links', () => {
    expect(pod.spec?.automountServiceAccountToken).toBe(false);
    expect(pod.spec?.enableServiceLinks).toBe(false);
    expect(pod.spec?.serviceAccountName).toBeUndefined();
  });

  it('passes the generated Squid config in one environment variable, with only the configured sources allowed', () => {
    expect(c.env).toHaveLength(1);
    const env = c.env?.[0];
    expect(env?.name).toBe(SQUID_CONF_ENV);
    expect(env?.value).toContain('http_port 3128');
    expect(env?.value).toContain('acl ep_allowed_src src 10.0.0.0/8\n');
    expect(env?.value).toContain('http_access allow ep_allowed_src\nhttp_access deny all');
    expect(env?.value).not.toMatch(/http_access\s+allow\s+all/);
    expect(c.command?.join(' ')).toContain('squid -N -f /run/squid/squid.conf');
    expect(c.command?.join(' ')).toContain('"$SQUID_CONF"');
  });

  it('never puts the cloud-init anywhere in the Pod', () => {
    expect(JSON.stringify(pod)).not.toContain('hunter2-secret');
  });

  it('exposes the port and probes it over TCP', () => {
    expect(c.ports).toEqual([{ name: 'proxy', containerPort: 3128, protocol: 'TCP' }]);
    expect(c.readinessProbe?.tcpSocket?.port).toBe(3128);
    expect(c.livenessProbe?.tcpSocket?.port).toBe(3128);
    expect(c.readinessProbe?.httpGet).toBeUndefined();
  });

  it('uses the configured image and resources', () => {
    expect(c.image).toBe(cfg.image);
    expect(c.resources).toEqual({
      requests: { cpu: '50m', memory: '64Mi' },
      limits: { cpu: '500m', memory: '256Mi' },
    });
  });

  it('maps placement.zone to a required topology.kubernetes.io/zone node affinity', () => {
    expect(pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
      nodeSelectorTerms: [
        {
          matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['eu-west-1a'] }],
        },
      ],
    });
    expect(buildPod({ ...req, placement: {} }, cfg).spec?.affinity).toBeUndefined();
  });

  it('references the owner as controller when the Pod shares its namespace', () => {
    expect(pod.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'egress.dev/v1alpha1',
        kind: 'Proxy',
        name: 'egress',
        uid: 'owner-uid',
        controller: true,
      },
    ]);
    const { owner: _, ...noOwner } = req;
    expect(buildPod(noOwner, cfg).metadata?.ownerReferences).toBeUndefined();
  });

  it('puts every Pod in the fixed namespace, without a cross-namespace owner reference', () => {
    const fixed = buildPod(req, parseKubernetesConfig({ namespacePolicy: 'fixed', namespace: 'proxies' }));
    expect(fixed.metadata?.namespace).toBe('proxies');
    expect(fixed.metadata?.ownerReferences).toBeUndefined();
  });

  it('applies nodeSelector, tolerations, serviceAccountName and imagePullSecrets from the config', () => {
    const full = parseKubernetesConfig({
      nodeSelector: { 'node-role/egress': 'true' },
      tolerations: [{ key: 'egress', operator: 'Exists', effect: 'NoSchedule' }],
      serviceAccountName: 'squid',
      imagePullSecrets: ['regcred'],
    });
    const p = buildPod(req, full);
    expect(p.spec?.nodeSelector).toEqual({ 'node-role/egress': 'true' });
    expect(p.spec?.tolerations).toEqual([{ key: 'egress', operator: 'Exists', effect: 'NoSchedule' }]);
    expect(p.spec?.serviceAccountName).toBe('squid');
    expect(p.spec?.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect(p.spec?.automountServiceAccountToken).toBe(false);
  });

  it('is pure: the same input gives the same Pod', () => {
    expect(buildPod(req, cfg)).toEqual(buildPod(req, cfg));
  });

  it.each([
    [{ name: '' }, ErrorCode.InvalidRequest, '""'],
    [{ name: 'Proxy_1' }, ErrorCode.InvalidRequest, 'Proxy_1'],
    [{ port: 0 }, ErrorCode.InvalidRequest, 'port 0'],
    [{ uid: 'has space' }, ErrorCode.InvalidRequest, 'has space'],
    [{ installation: '-bad-' }, ErrorCode.InvalidRequest, '-bad-'],
    [{ placement: { zone: 'zone with spaces' } }, ErrorCode.InvalidPlacement, 'zone with spaces'],
  ] as [Partial<CreateRequest>, string, string][])('rejects %j as Permanent %s', (patch, code, named) => {
    const e = catchErr(() => buildPod({ ...req, ...patch }, cfg));
    expect(isPermanent(e)).toBe(true);
    expect(e.code).toBe(code);
    expect(e.message).toContain(named);
  });
});
