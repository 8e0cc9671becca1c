import {
  type CreateRequest,
  ErrorCode,
  INSTALLATION_LABEL,
  MANAGED_LABEL,
  MANAGED_VALUE,
  permanentError,
  UID_LABEL,
} from '@egress-proxies/contract';
import type { V1Pod, V1Toleration } from '@kubernetes/client-node';
import type { KubernetesConfig } from './config.js';
import { isLabelValue, isObjectName } from './names.js';
import { SQUID_PATHS, squidConf } from './squid-conf.js';

/** The node label a `placement.zone` is matched against. */
export const ZONE_LABEL = 'topology.kubernetes.io/zone';
/** The environment variable the generated Squid config travels in (one object per proxy). */
export const SQUID_CONF_ENV = 'SQUID_CONF';
/** The container's name. */
export const CONTAINER_NAME = 'squid';
/**
 * The `proxy` user and group of the Debian/Ubuntu squid packages, which the default image uses;
 * Squid started as this user needs no capability at all.
 */
export const SQUID_UID = 13;
/** Annotation naming the owning Proxy (useful when every Pod lives in one fixed namespace). */
export const PROXY_ANNOTATION = 'egress-proxies.dev/proxy';

/** Writes the config from the environment into the run emptyDir, then replaces the shell with Squid. */
const START_SCRIPT = `printf '%s\\n' "$${SQUID_CONF_ENV}" > ${SQUID_PATHS.run}/squid.conf && exec squid -N -f ${SQUID_PATHS.run}/squid.conf`;

function labelValue(what: string, value: string, code: string): string {
  if (!isLabelValue(value)) {
    throw permanentError(
      `${what} ${JSON.stringify(value)} is not a valid Kubernetes label value (at most 63 characters, alphanumeric at both ends)`,
      { code },
    );
  }
  return value;
}

/** The namespace a request's Pod goes to under the configured policy. */
export function podNamespace(req: Pick<CreateRequest, 'namespace'>, cfg: KubernetesConfig): string {
  return cfg.namespacePolicy === 'fixed' && cfg.namespace ? cfg.namespace : req.namespace;
}

/**
 * The Pod for one proxy, as a pure function of the request and the config. Bad request fields
 * throw a Permanent ProviderError naming the value; nothing here touches the network.
 *
 * Hardening: non-root (`proxy`, uid 13), read-only root filesystem with emptyDirs for the run
 * directory, cache and logs, every capability dropped, no privilege escalation, seccomp
 * RuntimeDefault, no service-account token and no service links. The cloud-init of the request
 * is a secret meant for VMs and is deliberately not used.
 */
export function buildPod(req: CreateRequest, cfg: KubernetesConfig): V1Pod {
  if (typeof req.name !== 'string' || !isObjectName(req.name) || req.name.length > 63) {
    throw permanentError(`instance name ${JSON.stringify(req.name)} is not a valid Pod name`, {
      code: ErrorCode.InvalidRequest,
    });
  }
  // The UID becomes a label value: anything but a string would reach the API server as garbage.
  if (typeof req.uid !== 'string') {
    throw permanentError(`uid must be a string, got ${typeof req.uid}`, { code: ErrorCode.InvalidRequest });
  }
  if (!Number.isInteger(req.port) || req.port < 1 || req.port > 65535) {
    throw permanentError(`port ${JSON.stringify(req.port)} is not an integer in 1..65535`, {
      code: ErrorCode.InvalidRequest,
    });
  }
  const namespace = podNamespace(req, cfg);
  const labels: Record<string, string> = {
    'app.kubernetes.io/name': 'squid',
    'app.kubernetes.io/component': 'egress-proxy',
    'app.kubernetes.io/managed-by': 'egress-proxies',
    [MANAGED_LABEL]: MANAGED_VALUE,
    [UID_LABEL]: labelValue('uid', req.uid ?? '', ErrorCode.InvalidRequest),
  };
  if (req.installation)
    labels[INSTALLATION_LABEL] = labelValue('installation', req.installation, ErrorCode.InvalidRequest);

  const zone = req.placement?.zone;
  if (zone !== undefined && zone !== '') labelValue('placement.zone', zone, ErrorCode.InvalidPlacement);

  let conf: string;
  try {
    conf = squidConf(req.port, cfg.allowedSourceCIDRs);
  } catch (err) {
    throw permanentError((err as Error).message, { code: ErrorCode.InvalidConfig, cause: err });
  }

  const annotations: Record<string, string> = {};
  if (req.proxyName) annotations[PROXY_ANNOTATION] = `${req.namespace}/${req.proxyName}`;

  const pod: V1Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: req.name,
      namespace,
      labels,
      ...(Object.keys(annotations).length ? { annotations } : {}),
      // An owner in another namespace is invalid: the garbage collector would treat the owner as
      // missing and delete the Pod at once. So only when the Pod shares the Proxy's namespace.
      ...(req.owner && namespace === req.namespace
        ? {
            ownerReferences: [
              {
                apiVersion: req.owner.apiVersion,
                kind: req.owner.kind,
                name: req.owner.name,
                uid: req.owner.uid,
                controller: true,
              },
            ],
          }
        : {}),
    },
    spec: {
      restartPolicy: 'Always',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: 10,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: SQUID_UID,
        runAsGroup: SQUID_UID,
        fsGroup: SQUID_UID,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      containers: [
        {
          name: CONTAINER_NAME,
          image: cfg.image,
          command: ['/bin/sh', '-c', START_SCRIPT],
          env: [{ name: SQUID_CONF_ENV, value: conf }],
          ports: [{ name: 'proxy', containerPort: req.port, protocol: 'TCP' }],
          readinessProbe: {
            tcpSocket: { port: req.port },
            initialDelaySeconds: 2,
            periodSeconds: 5,
            failureThreshold: 3,
          },
          livenessProbe: {
            tcpSocket: { port: req.port },
            initialDelaySeconds: 10,
            periodSeconds: 20,
            failureThreshold: 3,
          },
          resources: resourcesOf(cfg),
          securityContext: {
            runAsNonRoot: true,
            allowPrivilegeEscalation: false,
            privileged: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
            seccompProfile: { type: 'RuntimeDefault' },
          },
          volumeMounts: [
            { name: 'run', mountPath: SQUID_PATHS.run },
            { name: 'cache', mountPath: SQUID_PATHS.cache },
            { name: 'logs', mountPath: SQUID_PATHS.logs },
          ],
        },
      ],
      volumes: [
        { name: 'run', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } },
        { name: 'cache', emptyDir: { sizeLimit: '64Mi' } },
        { name: 'logs', emptyDir: { sizeLimit: '64Mi' } },
      ],
      ...(cfg.nodeSelector && Object.keys(cfg.nodeSelector).length
        ? { nodeSelector: { ...cfg.nodeSelector } }
        : {}),
      ...(cfg.tolerations?.length ? { tolerations: cfg.tolerations.map(toleration) } : {}),
      ...(cfg.serviceAccountName ? { serviceAccountName: cfg.serviceAccountName } : {}),
      ...(cfg.imagePullSecrets?.length
        ? { imagePullSecrets: cfg.imagePullSecrets.map((name) => ({ name })) }
        : {}),
      ...(zone
        ? {
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: [
                    { matchExpressions: [{ key: ZONE_LABEL, operator: 'In', values: [zone] }] },
                  ],
                },
              },
            },
          }
        : {}),
    },
  };
  return pod;
}

function resourcesOf(cfg: KubernetesConfig) {
  const out: { requests?: Record<string, string>; limits?: Record<string, string> } = {};
  for (const k of ['requests', 'limits'] as const) {
    const list = cfg.resources?.[k];
    if (!list) continue;
    const entries = Object.entries(list).filter((e): e is [string, string] => typeof e[1] === 'string');
    if (entries.length) out[k] = Object.fromEntries(entries);
  }
  return out;
}

function toleration(t: NonNullable<KubernetesConfig['tolerations']>[number]): V1Toleration {
  const out: V1Toleration = { operator: t.operator };
  if (t.key !== undefined) out.key = t.key;
  if (t.value !== undefined) out.value = t.value;
  if (t.effect !== undefined) out.effect = t.effect;
  if (t.tolerationSeconds !== undefined) out.tolerationSeconds = t.tolerationSeconds;
  return out;
}
