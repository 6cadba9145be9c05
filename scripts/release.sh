#!/usr/bin/env bash
# Writes the release's install files, as JobSet's and Trainer's releases ship them:
#   build/release/manifests.yaml  everything `jaxset controller` needs on a cluster, one file
#                                 (`kubectl kustomize config/default`: CRDs, RBAC, namespace,
#                                 Deployment of localhost/jaxset:<VERSION>, webhooks);
#                                 kubectl apply --server-side -f manifests.yaml
#   build/release/runtimes.yaml   the jax-distributed ClusterTrainingRuntime and what Trainer
#                                 installs for its clients (config/runtimes), applied after
#                                 manifests.yaml (its CRDs must exist first)
# and, when scripts/image.sh has built it, the image archive beside them.
# Usage: scripts/release.sh [--out DIR] [--image REF]
#   --image REF  the image the Deployment names (e.g. registry.example.com/jaxset:0.1.0)
# Needs kubectl (its built-in kustomize); no cluster is contacted.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/release
image=
while [ $# -gt 0 ]; do
    case "$1" in
    --out) out="$2"; shift ;;
    --image) image="$2"; shift ;;
    *) echo "usage: scripts/release.sh [--out DIR] [--image REF]" >&2; exit 2 ;;
    esac
    shift
done
command -v kubectl >/dev/null || { echo "release.sh: needs kubectl (its kustomize)" >&2; exit 2; }
version=$(head -n1 VERSION)
mkdir -p "$out"
src=config/default
if [ -n "$image" ]; then
    # An overlay of config/default that names another image: the repository stays as it is.
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp/overlay"
    cp -r config "$tmp/config"
    name=${image%:*} tag=${image##*:}
    case "$tag" in */*) name=$image tag=latest ;; esac
    [ "$name" != "$image" ] || tag=latest
    printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../config/default\nimages:\n- name: localhost/jaxset\n  newName: %s\n  newTag: "%s"\n' \
        "$name" "$tag" >"$tmp/overlay/kustomization.yaml"
    src="$tmp/overlay"
fi
{
    echo "# jaxset $version: kubectl apply --server-side -f manifests.yaml"
    kubectl kustomize "$src"
} >"$out/manifests.yaml"
{
    echo "# jaxset $version: kubectl apply --server-side -f runtimes.yaml (after manifests.yaml)"
    kubectl kustomize config/runtimes
} >"$out/runtimes.yaml"
[ -f build/jaxset-image.tar ] && cp build/jaxset-image.tar "$out/jaxset-image-$version.tar"
ls -l "$out"
