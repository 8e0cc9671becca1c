import { type Infer, type InferInput, s } from '@egress-proxies/provider-utils';

export const MEMORY_DEFAULTS = {
  pollIntervalMs: 50,
  startTimeoutMs: 15_000,
} as const;

/**
 * The `memory:` block. The provider-utils schema gives the one config-error format (path, bad
 * value, what was expected, a did-you-mean for a typo) in the operator's loader and in
 * `createMemoryProvider` alike, with no code here.
 */
export const memoryConfigSchema = s.object({
  /** The hosts proxies are placed on; a placement's `zone` names one. */
  hosts: s.array(s.object({ name: s.string().min(1), address: s.string().optional() }), { min: 1 }),
  machineTypes: s.record(
    s.string(),
    s.object({
      vcpus: s.int(1, 64),
      memoryMiB: s.int(128),
      diskGiB: s.int(1),
    }),
  ),
  images: s.record(s.string(), s.object({ url: s.string().min(1), sizeGiB: s.int(1) })),
  /** The backend credential; never logged, never in an error. */
  token: s.string().min(1),
  pollIntervalMs: s.int(1).default(MEMORY_DEFAULTS.pollIntervalMs),
  startTimeoutMs: s.int(100).default(MEMORY_DEFAULTS.startTimeoutMs),
});

/** The block with defaults filled: what `createMemoryProvider` works with. */
export type MemoryConfig = Infer<typeof memoryConfigSchema>;
/** The block as written in a config (defaulted fields optional). */
export type MemoryConfigInput = InferInput<typeof memoryConfigSchema>;
