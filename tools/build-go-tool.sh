#!/usr/bin/env bash
# Builds one wrapper module beside this script (tools/NAME: go.mod, go.sum, *.go, and an
# optional `ldflags` file with extra linker flags) into a cache directory keyed by the hash of
# those files, the Go version and the build flags, and prints the binary's path. A second run
# with the same inputs builds nothing; concurrent runs build once.
#
#   build-go-tool.sh NAME [go build flags...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
name="${1:?usage: build-go-tool.sh NAME [go build flags...]}"
shift
src="$here/$name"
[ -f "$src/go.mod" ] || { echo "build-go-tool: no wrapper module at $src" >&2; exit 1; }
cache_root="${EGRESS_PROXIES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/egress-proxies}"
ldflags="-s -w"
[ -f "$src/ldflags" ] && ldflags="$ldflags $(grep -v '^#' "$src/ldflags" | tr '\n' ' ')"
key=$( (go version; go env CGO_ENABLED; echo "$* $ldflags"; cd "$src" && cat go.mod go.sum ./*.go) | sha256sum | cut -c1-16)
out="$cache_root/$name/$key"
if [ -x "$out/$name" ]; then
  echo "$out/$name"
  exit 0
fi
mkdir -p "$out"
exec 9>"$out.lock"
flock 9
if [ ! -x "$out/$name" ]; then
  (cd "$src" && GOFLAGS="${GOFLAGS:--buildvcs=false}" go build -trimpath -ldflags="$ldflags" "$@" -o "$out/$name.tmp" . &&
    mv "$out/$name.tmp" "$out/$name") >&2
fi
echo "$out/$name"
