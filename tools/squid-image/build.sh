#!/usr/bin/env bash
# Builds the Squid image the kubernetes provider's Pods run, without a registry: Debian
# bookworm minbase (the rootfs library's shared base) with the squid package (its `proxy` user is
# uid 13, as the Pod's securityContext expects) and curl (so the same image serves as the test
# cluster's client Pods), packed by buildah as an OCI archive for `ctr image import`.
#
#   build.sh [TAG]   build (or reuse) the archive; the last stdout line is its path
#
# Cached in <cache>/squid-image/<key>: <key> hashes this script, the shared rootfs library and
# the tag. Must run as root (debootstrap).
set -Eeuo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${EGRESS_PROXIES_CACHE:-$HOME/.cache/egress-proxies}"
tag="${1:-egress-proxies/squid:bookworm}"
suite=bookworm
step=start
log() { printf 'squid-image: %s\n' "$*" >&2; }
trap 'log "FAILED in step $step (exit $?, line $LINENO: $BASH_COMMAND)"' ERR
# shellcheck source=../rootfs-image/lib.sh
. "$here/../rootfs-image/lib.sh"

key="$( (sha256sum "$here/build.sh" "$here/../rootfs-image/lib.sh" | cut -d' ' -f1; echo "$tag") | sha256sum | cut -c1-16)"
out="$cache_root/squid-image/$key"
archive="$out/squid.oci.tar"
cache_hit_or_lock "$out" "$archive"

step="host packages"
rootfs_host_packages
tmp="$(mktemp -d "$cache_root/squid-image/.tmp-$key.XXXXXX")"
trap 'rm -rf --one-file-system "$tmp"' EXIT
rootfs="$tmp/rootfs"

step="base"
rootfs_base "$rootfs" "$suite"
step="squid"
# policy-rc.d keeps Squid from starting while apt configures it.
rootfs_apt_install "$rootfs" squid curl

step="check"
[ "$(chroot "$rootfs" id -u proxy)" = 13 ] || { log "FAILED: the proxy user is not uid 13"; exit 1; }
chroot "$rootfs" squid -v | head -n 1 >&2
chroot "$rootfs" curl --version | head -n 1 >&2
# The Pod mounts emptyDirs here; the image keeps them as empty directories.
rm -rf "$rootfs"/var/spool/squid/* "$rootfs"/var/log/squid/*
rootfs_trim "$rootfs"

step="pack"
mkdir -p "$tmp/out"
rootfs_pack "$rootfs" "$tmp/out/squid.oci.tar:$tag" --user 13:13 --cmd '["squid","-N"]' --port 3128/tcp
mv "$tmp/out" "$out"
log "built $archive ($(du -h "$archive" | cut -f1))"
echo "$archive"
