import { type CreateRequest, ErrorCode, permanentError } from '@egress-proxies/contract';
import type { MachineType, ProxmoxConfig } from './config.js';

export interface ResolvedPlacement {
  node: string;
  templateKey: string;
  template: number;
  machineTypeKey: string;
  machineType: MachineType;
}

const DNS_LABEL_RE = /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;

function pick<T>(what: string, key: string | undefined, catalogue: Record<string, T>): [string, T] {
  const keys = Object.keys(catalogue);
  if (key === undefined || key === '') {
    if (keys.length === 1) return [keys[0]!, catalogue[keys[0]!]!];
    throw permanentError(`placement.${what} is required: one of ${keys.join(', ')}`, {
      code: ErrorCode.InvalidPlacement,
    });
  }
  const v = catalogue[key];
  if (v === undefined || !Object.hasOwn(catalogue, key)) {
    throw permanentError(
      `placement.${what} ${JSON.stringify(key)} is not configured: one of ${keys.join(', ')}`,
      { code: ErrorCode.InvalidPlacement },
    );
  }
  return [key, v];
}

/** Checks the request against the config before any request is made; every failure is Permanent. */
export function resolvePlacement(cfg: ProxmoxConfig, req: CreateRequest): ResolvedPlacement {
  if (typeof req.name !== 'string' || !DNS_LABEL_RE.test(req.name)) {
    throw permanentError(`name ${JSON.stringify(req.name)} is not a valid VM name (a DNS label)`, {
      code: ErrorCode.InvalidRequest,
    });
  }
  if (typeof req.uid !== 'string' || req.uid === '' || /[\s=]/.test(req.uid)) {
    throw permanentError(`uid ${JSON.stringify(req.uid)} must be non-empty without spaces or '='`, {
      code: ErrorCode.InvalidRequest,
    });
  }
  const zone = req.placement?.zone;
  let node: string;
  if (zone === undefined || zone === '') {
    if (cfg.nodes.length !== 1) {
      throw permanentError(`placement.zone is required with several nodes: one of ${cfg.nodes.join(', ')}`, {
        code: ErrorCode.InvalidPlacement,
      });
    }
    node = cfg.nodes[0]!;
  } else if (cfg.nodes.includes(zone)) {
    node = zone;
  } else {
    throw permanentError(
      `placement.zone ${JSON.stringify(zone)} is not a configured node: one of ${cfg.nodes.join(', ')}`,
      { code: ErrorCode.InvalidPlacement },
    );
  }
  const [machineTypeKey, machineType] = pick('machineType', req.placement?.machineType, cfg.machineTypes);
  const [templateKey, template] = pick('image', req.placement?.image, cfg.templates);
  return { node, templateKey, template, machineTypeKey, machineType };
}
