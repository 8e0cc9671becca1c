import type { KeyedLock } from '@egress-proxies/keyedlock';
import type { OpContext } from '@egress-proxies/provider-utils';
import type { KubeBackend } from './backend.js';
import type { KubernetesConfig } from './config.js';

/** What every operation shares; built once per provider. */
export interface KubeState {
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

/** One call's context: the provider's state, the call's signal and logger. */
export interface Context extends OpContext, KubeState {}
