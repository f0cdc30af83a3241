#!/usr/bin/env bash
# Offline validation of the reference Kubernetes manifests (deploy/kubernetes/*.yaml) against the
# Kubernetes API's JSON schemas, with --strict (unknown fields are errors, e.g. a misspelt probe
# key). kubernetes-validate ships the schemas, so no cluster and no network beyond PyPI is needed;
# it is installed once into .data/tools (pinned), not by npm ci.
#   bash scripts/ci/validate-manifests.sh [dir or files...]   (default: deploy/kubernetes)
set -euo pipefail
cd "$(dirname "$0")/../.."

KV_VERSION=1.37.0
# The Kubernetes version the manifests target (one of the versions this package ships schemas for).
K8S_VERSION=${K8S_VERSION:-1.33.0}
tools=.data/tools/k8s-validate-$KV_VERSION

if [ ! -f "$tools/.installed" ]; then
  rm -rf "$tools"
  python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    --target "$tools" "kubernetes-validate==$KV_VERSION"
  touch "$tools/.installed"
fi

files=()
for arg in "${@:-deploy/kubernetes}"; do
  if [ -d "$arg" ]; then
    files+=("$arg"/*.yaml)
  else
    files+=("$arg")
  fi
done
[ "${#files[@]}" -gt 0 ] || { echo "validate-manifests: no manifest found" >&2; exit 1; }

# kubernetes-validate exits non-zero when a document is invalid (or has an unknown field), but only
# warns about a kind it has no schema for (e.g. a misspelt kind): that fails here too.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
PYTHONPATH="$tools" python3 -m kubernetes_validate --strict --kubernetes-version "$K8S_VERSION" "${files[@]}" 2>&1 | tee "$log" || status=$?
if grep -q "Couldn't find schema" "$log"; then
  echo "validate-manifests: a resource has no schema in Kubernetes $K8S_VERSION (misspelt kind or apiVersion?)" >&2
  status=1
fi
exit "$status"
