import { type CreateRequest, ErrorCode, permanentError } from '@egress-proxies/contract';
import type { ResolvedGcpConfig } from './config.js';
import { RESOURCE_NAME_RE, ZONE_RE } from './names.js';

const MACHINE_TYPE_RE =
  /^([a-z][a-z0-9-]*[a-z0-9]|zones\/[a-z]+-[a-z]+[0-9]+-[a-z]\/machineTypes\/[a-z][a-z0-9-]*[a-z0-9])$/;
// A project-qualified or project-local image path, by name or family, or the same as a URL.
const IMAGE_RE =
  /^(https:\/\/[a-z0-9.-]+\/compute\/v1\/)?(projects\/[a-z][a-z0-9.:-]*[a-z0-9]\/)?global\/images\/(family\/)?[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

function invalid(field: string, value: unknown, want: string): never {
  throw permanentError(`placement.${field} ${JSON.stringify(value)} is invalid: ${want}`, {
    code: ErrorCode.InvalidPlacement,
    details: { field },
  });
}

const keys = (m: Record<string, string>) =>
  Object.keys(m)
    .map((k) => JSON.stringify(k))
    .join(', ');

export interface ResolvedPlacement {
  zone: string;
  /** A GCE machine type name or zonal path. */
  machineType: string;
  /** An image path or URL. */
  image: string;
}

/**
 * Checks and resolves the request before anything is sent, so a bad zone, machine type or
 * image fails here as Permanent naming the field instead of as an operation that fails minutes
 * later. With `zones`, `machineTypes` or `images` configured the value must be one of them (a
 * single configured zone is also the default); without, it must be a well-formed GCE name.
 */
export function validateCreateRequest(req: CreateRequest, cfg: ResolvedGcpConfig): ResolvedPlacement {
  if (typeof req !== 'object' || req === null) {
    throw permanentError(`create request must be an object, got ${JSON.stringify(req)}`, {
      code: ErrorCode.InvalidRequest,
    });
  }
  if (typeof req.name !== 'string' || !RESOURCE_NAME_RE.test(req.name)) {
    throw permanentError(`name ${JSON.stringify(req.name)} is not a valid GCE instance name`, {
      code: ErrorCode.InvalidRequest,
    });
  }
  if (typeof req.uid !== 'string' || req.uid === '') {
    throw permanentError(`uid ${JSON.stringify(req.uid)} must be a non-empty string`, {
      code: ErrorCode.InvalidRequest,
    });
  }
  if (!Number.isInteger(req.port) || req.port < 1 || req.port > 65535) {
    throw permanentError(`port ${JSON.stringify(req.port)} must be an integer from 1 to 65535`, {
      code: ErrorCode.InvalidRequest,
    });
  }
  const p = req.placement ?? {};
  return {
    zone: zoneOf(p.zone, cfg),
    machineType: machineTypeOf(p.machineType, cfg),
    image: imageOf(p.image, cfg),
  };
}

function zoneOf(zone: string | undefined, cfg: ResolvedGcpConfig): string {
  if (!zone) {
    if (cfg.zones?.length === 1) return cfg.zones[0]!;
    invalid(
      'zone',
      zone,
      cfg.zones
        ? `required: one of the configured zones (${cfg.zones.join(', ')})`
        : 'required, for example "europe-west1-b"',
    );
  }
  // The configured zones are the allowed values, so they are named even for a malformed zone.
  if (cfg.zones && !cfg.zones.includes(zone)) {
    invalid('zone', zone, `not one of the configured zones (${cfg.zones.join(', ')})`);
  }
  if (!ZONE_RE.test(zone)) invalid('zone', zone, 'not a zone name such as "europe-west1-b"');
  return zone;
}

function machineTypeOf(machineType: string | undefined, cfg: ResolvedGcpConfig): string {
  if (!machineType) {
    invalid(
      'machineType',
      machineType,
      cfg.machineTypes
        ? `required: a key of the machineTypes catalogue (${keys(cfg.machineTypes)})`
        : 'required, for example "e2-small"',
    );
  }
  if (cfg.machineTypes) {
    const resolved = cfg.machineTypes[machineType];
    if (resolved === undefined || !Object.hasOwn(cfg.machineTypes, machineType)) {
      invalid(
        'machineType',
        machineType,
        `not a key of the machineTypes catalogue (${keys(cfg.machineTypes)})`,
      );
    }
    return resolved;
  }
  if (!MACHINE_TYPE_RE.test(machineType)) {
    invalid('machineType', machineType, 'not a machine type name such as "e2-small"');
  }
  return machineType;
}

function imageOf(image: string | undefined, cfg: ResolvedGcpConfig): string {
  if (!image) {
    invalid(
      'image',
      image,
      cfg.images
        ? `required: a key of the images catalogue (${keys(cfg.images)})`
        : 'required, for example "projects/ubuntu-os-cloud/global/images/family/ubuntu-2404-lts-amd64"',
    );
  }
  if (cfg.images) {
    const resolved = cfg.images[image];
    if (resolved === undefined || !Object.hasOwn(cfg.images, image)) {
      invalid('image', image, `not a key of the images catalogue (${keys(cfg.images)})`);
    }
    return resolved;
  }
  if (!IMAGE_RE.test(image)) {
    invalid('image', image, 'want projects/<project>/global/images/<name> or .../images/family/<family>');
  }
  return image;
}

/** Refuses a zonal machine type path that names another zone than the placement. */
export function checkMachineTypeZone(machineType: string, zone: string): void {
  if (machineType.startsWith('zones/') && !machineType.startsWith(`zones/${zone}/`)) {
    invalid('machineType', machineType, `names another zone than ${zone}`);
  }
}
