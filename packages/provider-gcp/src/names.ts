/** A GCE resource name: lowercase, starts with a letter, at most 63 characters. */
export const RESOURCE_NAME_RE = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** A zone name: `<area>-<location><n>-<letter>`, for example `europe-west1-b`. */
export const ZONE_RE = /^[a-z]+-[a-z]+[0-9]+-[a-z]$/;

/** The region of a zone: `europe-west1-b` -> `europe-west1`. */
export function regionOf(zone: string): string {
  return zone.slice(0, zone.lastIndexOf('-'));
}
