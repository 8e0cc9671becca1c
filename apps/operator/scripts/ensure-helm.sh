#!/usr/bin/env bash
# Builds helm from its Go module (once; cached by version) and prints the binary's path.
# The chart tests render the chart with it; a machine without Go fails loudly here. Concurrent
# callers (CI's background build and a chart test's hook) build once: the others wait on a lock.
set -euo pipefail
VERSION="${HELM_VERSION:-v3.19.0}"
CACHE="${EGRESS_PROXIES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/egress-proxies}/helm-${VERSION}"
BIN="$CACHE/helm"
if [[ -x "$BIN" ]]; then
  echo "$BIN"
  exit 0
fi
command -v go >/dev/null || { echo "ensure-helm: the go command is required to build helm ${VERSION}" >&2; exit 1; }
mkdir -p "$CACHE"
exec 9>"$CACHE.lock"
flock 9
if [[ -x "$BIN" ]]; then
  echo "$BIN"
  exit 0
fi
GOBIN="$CACHE" GOFLAGS="${GOFLAGS:--buildvcs=false}" CGO_ENABLED=0 go install "helm.sh/helm/v3/cmd/helm@${VERSION}" >&2
echo "$BIN"
