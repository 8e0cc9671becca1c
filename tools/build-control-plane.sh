#!/usr/bin/env bash
# Builds etcd and kube-apiserver from their Go modules (the wrapper modules beside this script)
# into a cache directory keyed by the hash of the wrappers and the Go version, and prints that
# directory. A second run with the same inputs builds nothing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache_root="${EGRESS_PROXIES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/egress-proxies}"
key=$( (go version; cat "$here"/etcd/{go.mod,go.sum,main.go} "$here"/kube-apiserver/{go.mod,go.sum,main.go}) | sha256sum | cut -c1-16)
out="$cache_root/control-plane/$key"
if [ -x "$out/etcd" ] && [ -x "$out/kube-apiserver" ]; then
  echo "$out"
  exit 0
fi
mkdir -p "$out"
exec 9>"$out.lock"
flock 9
# Side by side: a Go build leaves cores idle (the long single-threaded link, the tail of the
# package graph), which the other build fills; they share the module and build caches.
pids=()
if [ ! -x "$out/etcd" ]; then
  (cd "$here/etcd" && go build -trimpath -ldflags='-s -w' -o "$out/etcd.tmp" . && mv "$out/etcd.tmp" "$out/etcd") >&2 &
  pids+=($!)
fi
if [ ! -x "$out/kube-apiserver" ]; then
  (cd "$here/kube-apiserver" && go build -trimpath -ldflags='-s -w' -o "$out/kube-apiserver.tmp" . && mv "$out/kube-apiserver.tmp" "$out/kube-apiserver") >&2 &
  pids+=($!)
fi
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=$?; done
[ "$rc" = 0 ] || exit "$rc"
echo "$out"
