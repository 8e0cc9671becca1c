# Shared by the image builders beside this directory (node-base, squid-image, operator-image): a Debian rootfs
# from one cached debootstrap, packages added to it with apt, the site's local CAs, and packing a rootfs as an
# OCI archive with buildah.
# Sourced, not run; the caller sets `step` and `log` and runs under `set -Eeuo pipefail`.

# The Debian mirror the host's apt sources use for `suite`.
rootfs_mirror() {
  apt-get indextargets --format '$(REPO_URI) $(RELEASE)' | awk -v s="$1" '$2 == s { print $1; exit }'
}

# Installs debootstrap and buildah when missing (as root, on Debian).
rootfs_host_packages() {
  local need=()
  command -v debootstrap >/dev/null || need+=(debootstrap)
  command -v buildah >/dev/null || need+=(buildah)
  [ ${#need[@]} -eq 0 ] && return 0
  log "installing host packages: ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${need[@]}" >&2
}

# rootfs_debootstrap ROOTFS SUITE INCLUDE: a minbase rootfs with INCLUDE (comma-separated).
rootfs_debootstrap() {
  local rootfs="$1" suite="$2" include="$3" mirror
  mirror="$(rootfs_mirror "$suite")"
  [ -n "$mirror" ] || { log "FAILED: no '$suite' entry in the host's apt sources to take the Debian mirror from"; return 1; }
  log "debootstrap --variant=minbase --include=$include $suite from $mirror"
  debootstrap --variant=minbase --include="$include" "$suite" "$rootfs" "$mirror" >"$rootfs.debootstrap.log" 2>&1 ||
    { tail -n 30 "$rootfs.debootstrap.log" >&2; log "FAILED: debootstrap"; return 1; }
}

# rootfs_base ROOTFS SUITE: a minbase rootfs with ca-certificates, unpacked from a tarball that one
# debootstrap made for every image of this suite (cached in <cache>/debian-base/<key>, <key> hashing this
# library and the suite): the second image of a cold build skips the slowest step.
rootfs_base() {
  local rootfs="$1" suite="$2" key dir tarball tmp
  key="$( (sha256sum "${BASH_SOURCE[0]}" | cut -d' ' -f1; echo "$suite") | sha256sum | cut -c1-16)"
  dir="$cache_root/debian-base/$key"
  tarball="$dir/rootfs.tar"
  if [ ! -f "$tarball" ]; then
    mkdir -p "$cache_root/debian-base"
    exec 8>"$dir.lock"
    flock 8
    if [ ! -f "$tarball" ]; then
      tmp="$(mktemp -d "$cache_root/debian-base/.tmp-$key.XXXXXX")"
      rootfs_debootstrap "$tmp/rootfs" "$suite" ca-certificates || { rm -rf --one-file-system "$tmp"; return 1; }
      tar -C "$tmp/rootfs" --numeric-owner -cf "$tmp/rootfs.tar" . && mkdir -p "$dir" && mv "$tmp/rootfs.tar" "$tarball"
      rm -rf --one-file-system "$tmp"
      log "cached the $suite minbase rootfs in $tarball"
    fi
    exec 8>&-
  fi
  mkdir -p "$rootfs"
  tar -C "$rootfs" --numeric-owner -xpf "$tarball"
}

# rootfs_apt_install ROOTFS PACKAGE...: installs from the rootfs's own sources (the mirror debootstrap used),
# with daemons kept from starting and /proc mounted only for the maintainer scripts.
rootfs_apt_install() {
  local rootfs="$1" rc=0
  shift
  log "apt-get install $* (in the rootfs)"
  cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
  printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
  chmod +x "$rootfs/usr/sbin/policy-rc.d"
  mount -t proc proc "$rootfs/proc"
  {
    chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
  } >"$rootfs.apt.log" 2>&1 || rc=$?
  umount "$rootfs/proc"
  rm -f "$rootfs/usr/sbin/policy-rc.d"
  : >"$rootfs/etc/resolv.conf"
  [ "$rc" -eq 0 ] || { tail -n 30 "$rootfs.apt.log" >&2; log "FAILED: apt-get install $*"; return "$rc"; }
}

# The site's local CAs (Debian's place for them), so tools inside an image trust what the host
# trusts, e.g. behind a TLS-inspecting egress proxy. None on an ordinary machine.
rootfs_site_cas() {
  local f
  for f in /usr/local/share/ca-certificates/*.crt; do [ -f "$f" ] && echo "$f"; done
  return 0
}

# rootfs_add_site_cas ROOTFS: copies them in and refreshes the bundle; prints how many.
rootfs_add_site_cas() {
  local rootfs="$1" n=0 f
  while read -r f; do cp "$f" "$rootfs/usr/local/share/ca-certificates/"; n=$((n + 1)); done < <(rootfs_site_cas)
  [ "$n" -eq 0 ] || chroot "$rootfs" /usr/sbin/update-ca-certificates >/dev/null
  echo "$n"
}

# Caches, logs and device nodes an image does not carry (/dev is the runtime's to provide).
rootfs_trim() {
  local rootfs="$1"
  rm -rf "$rootfs"/dev/* "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*
}

# rootfs_pack ROOTFS ARCHIVE [buildah config args...]: one layer, written as an OCI archive.
rootfs_pack() {
  local rootfs="$1" archive="$2" ctr rc=0
  shift 2
  ctr="$(buildah from scratch)"
  {
    buildah copy --quiet "$ctr" "$rootfs" / >/dev/null &&
      buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@" "$ctr" &&
      buildah commit --quiet --format oci "$ctr" "oci-archive:$archive" >/dev/null
  } || rc=$?
  buildah rm "$ctr" >/dev/null 2>&1 || true
  return "$rc"
}

# cache_hit_or_lock OUT ARTIFACT: when ARTIFACT is built, prints it and ends the script; else
# (as root) takes OUT's lock and looks again, so concurrent builders of one key build it once.
cache_hit_or_lock() {
  local out="$1" artifact="$2"
  if [ -f "$artifact" ]; then echo "$artifact"; exit 0; fi
  [ "$(id -u)" -eq 0 ] || { log "FAILED: must run as root (debootstrap, chroot and buildah need it)"; exit 1; }
  mkdir -p "$(dirname "$out")"
  exec 9>"$out.lock"
  flock 9
  if [ -f "$artifact" ]; then echo "$artifact"; exit 0; fi
}
