#!/usr/bin/env bash
# Builds the operator image from the repository Dockerfile with buildah on the local Node 20
# base (tools/node-base), no registry involved, and writes it as an OCI archive that
# `ctr image import` (or `podman load`) takes.
#
#   build.sh [TAG]   build (or reuse) the image; the last stdout line is the archive's path
#
# Cached in <cache>/operator-image/<key>: <key> hashes the base, the Dockerfile and every file
# git tracks that the Dockerfile copies and the image can contain, so any source change rebuilds; buildah's --layers cache
# then reuses the dependency layer unless the lockfile changed. Must run as root.
set -Eeuo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache_root="${EGRESS_PROXIES_CACHE:-$HOME/.cache/egress-proxies}"
tag="${1:-egress-proxies/operator:dev}"
step=start
log() { printf 'operator-image: %s\n' "$*" >&2; }
trap 'log "FAILED in step $step (exit $?, line $LINENO: $BASH_COMMAND)"' ERR

# shellcheck source=../rootfs-image/lib.sh
. "$here/../rootfs-image/lib.sh"

step="base"
base="$(bash "$repo/tools/node-base/build.sh" | tail -n 1)"

step="key"
inputs=(Dockerfile Dockerfile.dockerignore package.json pnpm-lock.yaml pnpm-workspace.yaml turbo.json tsconfig.base.json tsup.base.ts packages apps)
# Tests, docs, fixtures, benchmarks and the test-only packages (but their manifests, which the
# install reads) never reach the image: editing them does not rebuild it.
mapfile -t keyed < <(cd "$repo" && git ls-files -- "${inputs[@]}" | awk '
  /^packages\/(e2e-|testenv-)[^\/]+\/package\.json$/ { print; next }
  /^packages\/(e2e-|testenv-)/ || /\.test\.ts$/ || /\.md$/ || /\/__fixtures__\// || /\/bench\// { next }
  { print }')
key="$( (cd "$repo" && echo "$tag"; echo "$base"; sha256sum "$here/build.sh" "$here/../rootfs-image/lib.sh" | cut -d' ' -f1;
  git ls-files -s -- "${keyed[@]}"; git diff --no-ext-diff HEAD -- "${keyed[@]}") | sha256sum | cut -c1-16)"
out="$cache_root/operator-image/$key"
archive="$out/operator.oci.tar"
cache_hit_or_lock "$out" "$archive"

step="buildah bud"
log "buildah bud $tag on $base"
# chroot isolation: no user namespaces or cgroup delegation needed on a CI machine.
buildah bud --isolation chroot --layers --ignorefile "$repo/Dockerfile.dockerignore" \
  --build-arg "NODE_IMAGE=oci-archive:$base" -f "$repo/Dockerfile" -t "$tag" "$repo" >&2

step="export"
tmp="$(mktemp -d "$cache_root/operator-image/.tmp-$key.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
buildah push --quiet "$tag" "oci-archive:$tmp/operator.oci.tar:$tag" >&2
mv "$tmp" "$out"
log "built $archive ($(du -h "$archive" | cut -f1))"
echo "$archive"
