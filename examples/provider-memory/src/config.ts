import * as z from 'zod';

export const MEMORY_DEFAULTS = {
  pollIntervalMs: 50,
  startTimeoutMs: 15_000,
} as const;

/**
 * The `memory:` block. zod gives the operator's house error messages (path, bad value, what was
 * expected, did-you-mean for a typo) without any code here: the loader reads zod issues.
 */
export const memoryConfigSchema = z.strictObject({
  /** The hosts proxies are placed on; a placement's `zone` names one. */
  hosts: z.array(z.strictObject({ name: z.string().min(1), address: z.string().optional() })).min(1),
  machineTypes: z.record(
    z.string(),
    z.strictObject({
      vcpus: z.int().min(1).max(64),
      memoryMiB: z.int().min(128),
      diskGiB: z.int().min(1),
    }),
  ),
  images: z.record(z.string(), z.strictObject({ url: z.string().min(1), sizeGiB: z.int().min(1) })),
  /** The backend credential; never logged, never in an error. */
  token: z.string().min(1),
  pollIntervalMs: z.int().min(1).default(MEMORY_DEFAULTS.pollIntervalMs),
  startTimeoutMs: z.int().min(100).default(MEMORY_DEFAULTS.startTimeoutMs),
});

/** The block with defaults filled: what `createMemoryProvider` takes. */
export type MemoryConfig = z.output<typeof memoryConfigSchema>;
export type MemoryConfigInput = z.input<typeof memoryConfigSchema>;
