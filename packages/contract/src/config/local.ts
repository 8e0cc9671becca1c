import * as z from 'zod';
import { absolutePath, cidrList, filePath, ipAddress, range } from './fields.js';

export const LOCAL_DEFAULTS = {
  bindAddress: '127.0.0.1',
  portRange: { min: 40000, max: 40999 },
  engine: 'auto',
  /** Loopback only, matching the default bind address. */
  allowedSourceCIDRs: ['127.0.0.0/8', '::1/128'],
} as const;

/** The `local:` block: proxies as processes on this machine (development, CI, tests). */
export const localConfigSchema = z.strictObject({
  /** Where each proxy's state file (its mark) and runtime files live. */
  stateDir: filePath(),
  bindAddress: ipAddress().default(LOCAL_DEFAULTS.bindAddress),
  /** Ports handed to proxies: the request's port when it is inside and free, otherwise one allocated from the range. */
  portRange: range(1, 65535).default(() => ({ ...LOCAL_DEFAULTS.portRange })),
  /** The Squid binary; looked up on PATH when absent. */
  squidPath: absolutePath('absolute path to the squid binary').optional(),
  /** `auto` uses Squid when found and the built-in Node proxy otherwise. */
  engine: z.enum(['auto', 'squid', 'node']).default(LOCAL_DEFAULTS.engine),
  allowedSourceCIDRs: cidrList().default(() => [...LOCAL_DEFAULTS.allowedSourceCIDRs]),
  /**
   * Gives each proxy that names no placement.zone its own outgoing address 127.0.0.N (N >= 2),
   * so one machine shows distinct egress addresses. Reaches loopback targets only: Linux routes
   * all of 127.0.0.0/8 to lo and never sends such a source anywhere else.
   */
  loopbackEgress: z.boolean().default(false),
});

export type LocalConfig = z.output<typeof localConfigSchema>;
export type LocalConfigInput = z.input<typeof localConfigSchema>;
