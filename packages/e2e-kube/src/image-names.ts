/**
 * The name the kubelet asks containerd for when a Pod names `ref`: a short reference gets
 * `docker.io/` (and `library/` for a single component); one with a registry host stays as it is.
 * Images imported without a registry must carry this name or the kubelet tries to pull them.
 */
export function qualifiedImage(ref: string): string {
  const first = ref.split('/')[0] ?? '';
  if (ref.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')) return ref;
  return ref.includes('/') ? `docker.io/${ref}` : `docker.io/library/${ref}`;
}
