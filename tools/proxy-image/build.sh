#!/usr/bin/env bash
# Builds the proxy VM image: a minimal Debian bookworm with cloud-init, the QEMU guest agent
# and Squid, on a UEFI GPT disk (systemd-boot), as a compressed qcow2.
#
#   build.sh              build (or reuse) the image; the last stdout line is its directory
#   build.sh --print-dir  print the directory the image lives in, without building
#
# The directory is <cache>/proxy-image/<key>, where <cache> is $EGRESS_PROXIES_CACHE (default
# ~/.cache/egress-proxies) and <key> is the SHA-256 over this script and every file beside it
# (the listing `sha256sum` prints for them, sorted by path). Editing any of them rebuilds.
# It holds proxy.qcow2 and proxy.qcow2.sha256. Must run as root: debootstrap and chroot need it.
# The disk is assembled without mounting anything, so a failed build leaves no mount behind
# except /proc inside the temporary rootfs, which the exit trap removes.
set -Eeuo pipefail
shopt -s nullglob

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${EGRESS_PROXIES_CACHE:-$HOME/.cache/egress-proxies}"
suite=bookworm
esp_mib=256
root_mib=2048

step="start"
log() { printf 'proxy-image: %s\n' "$*" >&2; }
die() { log "FAILED in step '$step': $*"; exit 1; }
on_error() {
  local rc=$?
  log "FAILED in step '$step' (exit $rc, line $1: $2)"
  exit "$rc"
}
trap 'on_error "$LINENO" "$BASH_COMMAND"' ERR

input_key() {
  (
    cd "$here"
    # Names with odd characters would make sha256sum escape them and break the listing format.
    odd="$(find . -type f -printf '%P\n' | grep '[^A-Za-z0-9._/+-]' || true)"
    if [ -n "$odd" ]; then
      echo "input file names must be plain ASCII without spaces: $odd" >&2
      exit 1
    fi
    find . -type f -printf '%P\n' | LC_ALL=C sort | xargs -r -d '\n' sha256sum -- | sha256sum | cut -d' ' -f1
  )
}

key="$(input_key)"
images="$cache_root/proxy-image"
out="$images/$key"

if [ "${1:-}" = "--print-dir" ]; then
  echo "$out"
  exit 0
fi
[ $# -eq 0 ] || die "unknown argument: $1 (expected none or --print-dir)"

if [ -f "$out/proxy.qcow2" ] && [ -f "$out/proxy.qcow2.sha256" ]; then
  echo "$out"
  exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap and chroot need it)"

step="lock"
mkdir -p "$images"
exec 9>"$images/$key.lock"
flock 9
# Another builder may have finished while this one waited for the lock.
if [ -f "$out/proxy.qcow2" ] && [ -f "$out/proxy.qcow2.sha256" ]; then
  echo "$out"
  exit 0
fi

unmount_under() {
  # Deepest first, so nested mounts come off before their parents.
  local dir="$1" m
  while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" || true
  done < <(awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r)
}

remove_tree() {
  local dir="$1"
  [ -d "$dir" ] || return 0
  unmount_under "$dir"
  if awk -v d="$dir/" 'index($2, d) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
    log "not removing $dir: something is still mounted under it"
    return 1
  fi
  rm -rf --one-file-system "$dir"
}

# Leftovers of builders of this key that were killed; the lock says none is running now.
for old in "$images"/.tmp-"$key".*; do
  remove_tree "$old" || true
done

tmp="$(mktemp -d "$images/.tmp-$key.XXXXXX")"
cleanup() { remove_tree "$tmp" || true; }
trap cleanup EXIT
work="$tmp/work"
rootfs="$work/rootfs"
mkdir -p "$work" "$tmp/out"

step="host packages"
need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v mkfs.vfat >/dev/null || need+=(dosfstools)
command -v mcopy >/dev/null || need+=(mtools)
command -v sfdisk >/dev/null || need+=(fdisk)
command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
command -v qemu-img >/dev/null || need+=(qemu-utils)
[ -f /usr/lib/systemd/boot/efi/systemd-bootx64.efi ] || need+=(systemd-boot-efi)
[ -f /usr/share/OVMF/OVMF_CODE_4M.fd ] || need+=(ovmf)
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || need+=(debian-archive-keyring)
if [ ${#need[@]} -gt 0 ]; then
  log "installing host packages: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${need[@]}" >&2
fi

# Prints "<file> <uri> <suite>" for every enabled deb entry of the host's apt sources, in both
# the one-line and the deb822 format.
apt_entries() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v f="$f" '
      /^[ \t]*deb[ \t]/ {
        sub(/^[ \t]*deb[ \t]+/, "")
        if ($0 ~ /^\[/) { sub(/^\[[^]]*\][ \t]*/, "") }
        print f, $1, $2
      }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    awk -v f="$f" '
      BEGIN { RS = ""; FS = "\n" }
      {
        types = ""; uris = ""; suites = ""; enabled = "yes"
        for (i = 1; i <= NF; i++) {
          line = $i
          if (line ~ /^[ \t]*#/) continue
          n = index(line, ":"); if (n == 0) continue
          k = tolower(substr(line, 1, n - 1)); v = substr(line, n + 1)
          gsub(/^[ \t]+|[ \t]+$/, "", v)
          if (k == "types") types = v
          else if (k == "uris") uris = v
          else if (k == "suites") suites = v
          else if (k == "enabled") enabled = tolower(v)
        }
        if (enabled == "no" || (" " types " ") !~ / deb /) next
        nu = split(uris, u, /[ \t]+/); ns = split(suites, s, /[ \t]+/)
        for (a = 1; a <= nu; a++) for (b = 1; b <= ns; b++) print f, u[a], s[b]
      }' "$f"
  done
}

step="apt sources"
entries="$(apt_entries)"
mirror="$(awk -v s="$suite" '$3 == s { print $2; exit }' <<<"$entries")"
[ -n "$mirror" ] || die "no enabled '$suite' entry in the host's apt sources to take the Debian mirror from"
# Host source files that only name Debian suites of this release go into the image as they are.
mapfile -t source_files < <(awk -v s="$suite" '
  { files[$1] = 1; if ($3 != s && index($3, s "-") != 1) bad[$1] = 1 }
  END { for (f in files) if (!(f in bad)) print f }' <<<"$entries" | sort)
log "mirror: $mirror (sources: ${source_files[*]})"

step="debootstrap"
include="$(grep -v '^[[:space:]]*\(#\|$\)' "$here/debootstrap-packages.txt" | paste -sd, -)"
log "debootstrap --variant=minbase --include=$include $suite"
debootstrap --variant=minbase --include="$include" "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 40 "$work/debootstrap.log" >&2; tail -n 40 "$rootfs/debootstrap/debootstrap.log" >&2 2>/dev/null || true; die "debootstrap failed"; }

step="second stage"
rm -f "$rootfs/etc/apt/sources.list"
mkdir -p "$rootfs/etc/apt/sources.list.d"
for f in "${source_files[@]}"; do
  if [ "$f" = /etc/apt/sources.list ]; then
    cp "$f" "$rootfs/etc/apt/sources.list"
  else
    cp "$f" "$rootfs/etc/apt/sources.list.d/"
  fi
done
cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
# No daemon may start inside the chroot while packages are configured.
printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
chmod 0755 "$rootfs/usr/sbin/policy-rc.d"
mount -t proc proc "$rootfs/proc"
mapfile -t packages < <(grep -v '^[[:space:]]*\(#\|$\)' "$here/packages.txt")
log "apt-get install ${packages[*]}"
chroot_env=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 HOME=/root)
{
  chroot "$rootfs" "${chroot_env[@]}" apt-get update -qq &&
    chroot "$rootfs" "${chroot_env[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"
} >"$work/apt.log" 2>&1 || { tail -n 60 "$work/apt.log" >&2; die "apt-get in the chroot failed"; }

step="configure"
cp -a "$here/rootfs/." "$rootfs/"
chroot "$rootfs" "${chroot_env[@]}" systemctl enable squid cloud-init-local cloud-init cloud-config cloud-final ssh >&2
# The agent is started by udev when its virtio port appears; enable it too where the unit allows.
chroot "$rootfs" "${chroot_env[@]}" systemctl enable qemu-guest-agent >&2 2>&1 ||
  grep -q 'dev-virtio' "$rootfs/lib/systemd/system/qemu-guest-agent.service" ||
  die "qemu-guest-agent can neither be enabled nor is it started by its virtio port"
# A proxy never updates itself in the background (and must not reach out on its own).
chroot "$rootfs" "${chroot_env[@]}" systemctl mask apt-daily.timer apt-daily-upgrade.timer >&2

step="clean"
umount "$rootfs/proc"
rm -f "$rootfs/usr/sbin/policy-rc.d"
chroot "$rootfs" "${chroot_env[@]}" apt-get clean
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/debconf/*-old \
  "$rootfs"/var/lib/dpkg/*-old "$rootfs"/tmp/* "$rootfs"/var/tmp/*
# Per-instance identity is created on first boot, never shared between VMs.
rm -f "$rootfs"/etc/ssh/ssh_host_* "$rootfs/var/lib/systemd/random-seed" "$rootfs/var/lib/dbus/machine-id"
: >"$rootfs/etc/machine-id"
: >"$rootfs/etc/resolv.conf"
find "$rootfs/var/log" -type f -exec truncate -s 0 {} +

step="root filesystem"
uuid="$(cat /proc/sys/kernel/random/uuid)"
printf 'UUID=%s / ext4 errors=remount-ro 0 1\n' "$uuid" >"$rootfs/etc/fstab"
kernel="$(find "$rootfs/boot" -maxdepth 1 -name 'vmlinuz-*' | sort -V | tail -n 1)"
initrd="$rootfs/boot/initrd.img-${kernel##*/vmlinuz-}"
if [ ! -f "$kernel" ] || [ ! -f "$initrd" ]; then
  die "no kernel and initrd in the rootfs /boot"
fi
truncate -s "${root_mib}M" "$work/root.img"
mkfs.ext4 -q -F -U "$uuid" -L proxy-root -d "$rootfs" "$work/root.img" >&2

step="EFI system partition"
truncate -s "${esp_mib}M" "$work/esp.img"
mkfs.vfat -F 32 -n ESP "$work/esp.img" >/dev/null
mmd -i "$work/esp.img" ::/EFI ::/EFI/BOOT ::/loader ::/loader/entries
mcopy -i "$work/esp.img" /usr/lib/systemd/boot/efi/systemd-bootx64.efi ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$work/esp.img" "$kernel" ::/vmlinuz
mcopy -i "$work/esp.img" "$initrd" ::/initrd.img
mcopy -i "$work/esp.img" "$here/esp/loader/loader.conf" ::/loader/loader.conf
sed "s/@ROOT_UUID@/$uuid/g" "$here/esp/loader/entries/proxy.conf.in" >"$work/proxy.conf"
mcopy -i "$work/esp.img" "$work/proxy.conf" ::/loader/entries/proxy.conf
rm -rf --one-file-system "$rootfs"

step="disk"
# 1 MiB before the ESP and 1 MiB after the root for the two GPT copies.
disk_mib=$((1 + esp_mib + root_mib + 1))
truncate -s "${disk_mib}M" "$work/disk.raw"
sfdisk --quiet "$work/disk.raw" >&2 <<EOF
label: gpt
unit: sectors
start=2048, size=$((esp_mib * 2048)), type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name="esp"
start=$(((1 + esp_mib) * 2048)), size=$((root_mib * 2048)), type=0FC63DAF-8483-4772-8E79-3D69C7DE4709, name="root"
EOF
dd if="$work/esp.img" of="$work/disk.raw" bs=1M seek=1 conv=notrunc,sparse status=none
dd if="$work/root.img" of="$work/disk.raw" bs=1M seek=$((1 + esp_mib)) conv=notrunc,sparse status=none
rm -f "$work/esp.img" "$work/root.img"

step="qcow2"
qemu-img convert -c -O qcow2 "$work/disk.raw" "$tmp/out/proxy.qcow2"
(cd "$tmp/out" && sha256sum proxy.qcow2 >proxy.qcow2.sha256)

step="publish"
mv -T "$tmp/out" "$out"
log "built $out/proxy.qcow2 ($(du -h --apparent-size "$out/proxy.qcow2" | cut -f1))"
echo "$out"
