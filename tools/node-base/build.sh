#!/usr/bin/env bash
# Builds a Node 20 base image without a registry: a debootstrap'd Debian bookworm (minbase,
# ca-certificates: the rootfs library's shared base) with this machine's own `node` and npm, a
# `node` user (uid 1000) as in the official image, packed by buildah as an OCI archive. The repository Dockerfile builds on it
# with `--build-arg NODE_IMAGE=oci-archive:<archive>`.
#
#   build.sh   build (or reuse) the archive; the last stdout line is its path
#
# Cached in <cache>/node-base/<key>: <key> hashes this script, the shared rootfs library, the
# Node version, the bytes of the node binary and npm, and the site CAs, so a Node upgrade on the
# machine rebuilds. Must run as root.
set -Eeuo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${EGRESS_PROXIES_CACHE:-$HOME/.cache/egress-proxies}"
suite=bookworm
step=start
log() { printf 'node-base: %s\n' "$*" >&2; }
trap 'log "FAILED in step $step (exit $?, line $LINENO: $BASH_COMMAND)"' ERR
# shellcheck source=../rootfs-image/lib.sh
. "$here/../rootfs-image/lib.sh"

step="node"
node_bin="$(command -v node)" || { log "FAILED: no node on PATH to put into the image"; exit 1; }
node_bin="$(readlink -f "$node_bin")"
case "$(node -v)" in v20.*) ;; *) log "FAILED: the image must carry Node 20, the machine has $(node -v)"; exit 1 ;; esac
npm_dir="$(readlink -f "$(dirname "$node_bin")/../lib/node_modules/npm")"
[ -f "$npm_dir/bin/npm-cli.js" ] || { log "FAILED: no npm beside $node_bin (looked in $npm_dir)"; exit 1; }
mapfile -t site_cas < <(rootfs_site_cas)

key="$( (sha256sum "$here/build.sh" "$here/../rootfs-image/lib.sh" "$node_bin" "$npm_dir/package.json" ${site_cas[@]+"${site_cas[@]}"} | cut -d' ' -f1
  node -v) | sha256sum | cut -c1-16)"
out="$cache_root/node-base/$key"
archive="$out/node-base.oci.tar"
cache_hit_or_lock "$out" "$archive"

step="host packages"
rootfs_host_packages
tmp="$(mktemp -d "$cache_root/node-base/.tmp-$key.XXXXXX")"
trap 'rm -rf --one-file-system "$tmp"' EXIT
rootfs="$tmp/rootfs"

step="base"
rootfs_base "$rootfs" "$suite"

step="node"
install -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
chroot "$rootfs" /usr/sbin/groupadd --gid 1000 node
chroot "$rootfs" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$rootfs" /usr/local/bin/node -e 'if (!process.version.startsWith("v20.")) process.exit(1)'
ca_env=()
# Node reads its own CA bundle, not the system store, unless told.
[ "$(rootfs_add_site_cas "$rootfs")" = 0 ] || ca_env=(--env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt)
rootfs_trim "$rootfs"

step="pack"
mkdir -p "$tmp/out"
rootfs_pack "$rootfs" "$tmp/out/node-base.oci.tar" ${ca_env[@]+"${ca_env[@]}"} --cmd node
mv "$tmp/out" "$out"
log "built $archive ($(du -h "$archive" | cut -f1))"
echo "$archive"
