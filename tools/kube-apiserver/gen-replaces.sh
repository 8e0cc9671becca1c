#!/usr/bin/env bash
# Writes go.mod for the chosen Kubernetes release: k8s.io/kubernetes requires every staging
# module at the placeholder v0.0.0, resolved upstream by replace lines that importers do not
# inherit, so each staging module is replaced by its published v0.<minor>.<patch>.
#
#   gen-replaces.sh [VERSION] [DIR]   DIR is the wrapper module (default: this directory)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
K8S_VERSION="${1:-v1.34.4}"
cd "${2:-$here}"
module="egress-proxies.dev/tools/$(basename "$PWD")"
staging="v0.${K8S_VERSION#v1.}"
rm -f go.mod go.sum
go mod init "$module" >/dev/null 2>&1
modfile=$(go mod download -json "k8s.io/kubernetes@${K8S_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
go mod edit -require="k8s.io/kubernetes@${K8S_VERSION}"
for m in $(awk '$2 == "v0.0.0" && $1 ~ /^k8s\.io\// {print $1}' "$modfile"); do
  go mod edit -replace="${m}=${m}@${staging}"
done
go mod tidy
