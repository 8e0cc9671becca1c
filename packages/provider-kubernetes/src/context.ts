import type { KeyedLock } from '@egress-proxies/keyedlock';
import type { KubeBackend } from './backend.js';
import type { KubernetesConfig } from './config.js';

/** What every operation module needs; built once per provider. */
export interface KubeContext {
  /** The configured provider entry name. */
  name: string;
  cfg: KubernetesConfig;
  /** The observed seam (spans and V1 lines around every call). */
  backend: KubeBackend;
  /** Serialises create and delete of one `namespace/name`. */
  lock: KeyedLock<string>;
  /** Page size for listByTag. */
  listPageSize: number;
}
