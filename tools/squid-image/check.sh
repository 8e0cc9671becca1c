#!/usr/bin/env bash
# Runs the Squid image the way the kubernetes provider's Pod does, without a kubelet: as uid 13
# with no capabilities, on a read-only root filesystem, with fresh tmpfs at the Pod's three
# emptyDir paths, and the provider's own generated squid.conf passed in the environment. Then
# checks that an allowed client gets through and a client outside the allowed CIDR is refused.
#
#   check.sh ARCHIVE   ARCHIVE is what build.sh printed
set -Eeuo pipefail
archive="$1"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
log() { printf 'squid-check: %s\n' "$*" >&2; }
[ "$(id -u)" -eq 0 ] || { log "FAILED: must run as root (namespaces, chroot)"; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
ctr="$(buildah from --quiet "oci-archive:$archive")"
squid_pid=""
cleanup() {
  # unshare ignores SIGTERM while it waits, and the uid change clears --kill-child's death
  # signal, so Squid (unshare's child) is stopped by its own pid.
  if [ -n "$squid_pid" ]; then
    pkill -TERM -P "$squid_pid" 2>/dev/null || true
    wait "$squid_pid" 2>/dev/null || true
  fi
  buildah umount "$ctr" >/dev/null 2>&1 || true
  buildah rm "$ctr" >/dev/null 2>&1 || true
}
trap cleanup EXIT
root="$(buildah mount "$ctr")"
# The provider's config for this port, letting only loopback's 127.0.0.1/32 in.
conf="$(cd "$repo/packages/provider-kubernetes" && node --input-type=module -e "
  const { squidConf } = await import('./dist/index.js');
  process.stdout.write(squidConf(${port}, ['127.0.0.1/32']));")"
# Squid logs to /dev/stdout and /dev/stderr, which it reopens as uid 13; a runtime hands the
# container stdio it owns (runc chowns it), so here it is a fifo owned by uid 13.
stdio_dir="$(mktemp -d)"
stdio="$stdio_dir/stdio"
mkfifo -m 600 "$stdio" && chown 13:13 "$stdio"
cat "$stdio" >"$stdio_dir/squid.log" &
# A private mount namespace: the root bind-mounted read-only, tmpfs where the Pod has emptyDirs.
SQUID_CONF="$conf" unshare --mount --fork sh -c '
  set -e
  # Mount points first, as the runtime creates them before it makes the root read-only.
  mkdir -p "$0/run/squid" "$0/var/spool/squid" "$0/var/log/squid"
  mount --bind "$0" "$0" && mount -o remount,bind,ro "$0"
  for d in run/squid var/spool/squid var/log/squid; do mount -t tmpfs -o mode=1777 tmpfs "$0/$d"; done
  mount -t proc proc "$0/proc"
  # The /dev a container runtime provides: a few nodes, the stdio links, and /dev/shm (Squid
  # needs shared memory even without workers).
  mount -t tmpfs -o mode=755 tmpfs "$0/dev"
  for n in null:1:3 zero:1:5 random:1:8 urandom:1:9; do
    IFS=: read -r name major minor <<EOF2
$n
EOF2
    mknod -m 666 "$0/dev/$name" c "$major" "$minor"
  done
  ln -s /proc/self/fd "$0/dev/fd"
  ln -s /proc/self/fd/0 "$0/dev/stdin"; ln -s /proc/self/fd/1 "$0/dev/stdout"; ln -s /proc/self/fd/2 "$0/dev/stderr"
  mkdir "$0/dev/shm" && mount -t tmpfs -o mode=1777 tmpfs "$0/dev/shm"
  exec chroot --userspec=13:13 "$0" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/bin SQUID_CONF="$SQUID_CONF" \
    /bin/sh -c "printf \"%s\\n\" \"\$SQUID_CONF\" > /run/squid/squid.conf && exec squid -N -f /run/squid/squid.conf"
' "$root" >"$stdio" 2>&1 &
squid_pid=$!
for _ in $(seq 1 120); do
  curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/" && break
  kill -0 "$squid_pid" 2>/dev/null || { tail -n 20 "$stdio_dir/squid.log" >&2; log "FAILED: squid exited"; exit 1; }
  sleep 0.5
done
# A destination Squid may reach (not loopback, which its config refuses): a server on this
# machine's own non-loopback address.
host_ip="$(ip -4 -o addr show scope global | awk '{split($4, a, "/"); print a[1]; exit}')"
[ -n "$host_ip" ] || { log "FAILED: no global IPv4 address for the test server"; exit 1; }
web_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
web="$(mktemp -d)"
echo squid-check-ok >"$web/index.html"
python3 -m http.server --bind "$host_ip" --directory "$web" "$web_port" >/dev/null 2>&1 &
web_pid=$!
trap 'kill $web_pid 2>/dev/null || true; rm -rf "$web" "$stdio_dir"; cleanup' EXIT
for _ in $(seq 1 60); do curl -s -o /dev/null --max-time 2 "http://$host_ip:$web_port/" && break; sleep 0.5; done
through=$(curl -s --max-time 20 -x "http://127.0.0.1:$port" "http://$host_ip:$web_port/" || true)
outside=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 --interface 127.0.0.2 -x "http://127.0.0.1:$port" "http://$host_ip:$web_port/" || true)
log "squid as uid 13 on a read-only root: client 127.0.0.1 got '$through'; client 127.0.0.2 (outside the CIDR) got HTTP $outside"
[ "$through" = squid-check-ok ] || { log "FAILED: the allowed client did not get through"; exit 1; }
[ "$outside" = 403 ] || { log "FAILED: the client outside the allowed CIDR was not refused"; exit 1; }
log "ok"
