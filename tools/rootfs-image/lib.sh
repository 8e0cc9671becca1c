# Shared by the image builders beside this directory (node-base, squid-image, operator-image): a Debian rootfs
# from debootstrap, the site's local CAs, and packing a rootfs as an OCI archive with buildah.
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
