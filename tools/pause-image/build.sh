#!/usr/bin/env bash
# Builds the sandbox ("pause") image of the test cluster's Pods without a registry: the static
# binary of tools/pause (Go, no cgo) alone in an image, packed by buildah as an OCI archive that
# the node's containerd imports under the name its config gives as sandbox_image.
#
#   build.sh [TAG]   build (or reuse) the archive; the last stdout line is its path
#
# Cached in <cache>/pause-image/<key>: <key> hashes this script, the binary and the tag.
set -Eeuo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${EGRESS_PROXIES_CACHE:-$HOME/.cache/egress-proxies}"
tag="${1:-docker.io/egress-proxies/pause:3.10}"
step=start
log() { printf 'pause-image: %s\n' "$*" >&2; }
trap 'log "FAILED in step $step (exit $?, line $LINENO: $BASH_COMMAND)"' ERR
# shellcheck source=../rootfs-image/lib.sh
. "$here/../rootfs-image/lib.sh"

step="binary"
bin="$(CGO_ENABLED=0 bash "$here/../build-go-tool.sh" pause | tail -n 1)"
key="$( (sha256sum "$here/build.sh" "$bin" | cut -d' ' -f1; echo "$tag") | sha256sum | cut -c1-16)"
out="$cache_root/pause-image/$key"
archive="$out/pause.oci.tar"
cache_hit_or_lock "$out" "$archive"

step="host packages"
rootfs_host_packages
tmp="$(mktemp -d "$cache_root/pause-image/.tmp-$key.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/rootfs" "$tmp/out"
install -m 0755 "$bin" "$tmp/rootfs/pause"

step="pack"
ctr="$(buildah from scratch)"
rc=0
{
  buildah copy --quiet "$ctr" "$tmp/rootfs/pause" /pause >/dev/null &&
    buildah config --entrypoint '["/pause"]' --user 65535:65535 "$ctr" &&
    buildah commit --quiet --format oci "$ctr" "oci-archive:$tmp/out/pause.oci.tar:$tag" >/dev/null
} || rc=$?
buildah rm "$ctr" >/dev/null 2>&1 || true
[ "$rc" -eq 0 ] || { log "FAILED: buildah could not pack the image"; exit "$rc"; }
mv "$tmp/out" "$out"
log "built $archive ($(du -h "$archive" | cut -f1))"
echo "$archive"
