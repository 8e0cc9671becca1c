import { type ProviderEntry, type ProviderRegistry, ProvidersConfigError } from '@egress-proxies/contract';

/** Refuses entries whose type this build has no factory for, naming each entry's path. */
export function checkRegistered(
  registry: ProviderRegistry,
  entries: ProviderEntry[],
  source: string,
): ProviderEntry[] {
  const issues = entries.flatMap((e, i) =>
    registry.has(e.type)
      ? []
      : [
          {
            path: `providers[${i}].type`,
            message: `type ${JSON.stringify(e.type)} of provider ${JSON.stringify(e.name)} is not bundled in this build (bundled: ${registry.types().join(', ') || 'none'})`,
          },
        ],
  );
  if (issues.length > 0) throw new ProvidersConfigError(issues, { source });
  return entries;
}
