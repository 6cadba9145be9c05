"""Minimal OpenAPI documents, enough for kubectl's discovery of server-side field validation:

- /openapi/v3 lists one document per group-version; each names, for every kind, the PATCH
  operation with its x-kubernetes-group-version-kind and the `fieldValidation` parameter, so
  kubectl sends fieldValidation=Strict and leaves validation to the server (as with a real
  server). The request bodies do not offer strategic merge patch, so kubectl computes apply
  patches from its compiled-in types (built-ins) or as JSON merge patches (custom resources),
  as it does without OpenAPI. Custom resources' schemas are published (components.schemas,
  tagged with x-kubernetes-group-version-kind), so `kubectl explain` reads their fields.
- /openapi/v2 is a valid but empty Swagger document, in JSON or in the gnostic protobuf
  encoding kubectl asks for. It has no schemas: the server publishes no type definitions."""
import hashlib

from .util import dumpb


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(num, payload):
    return _varint((num << 3) | 2) + _varint(len(payload)) + payload


def v2_protobuf(version):
    """openapi_v2.Document{swagger: "2.0", info: {title, version}, paths: {}}."""
    info = _field(1, b"Kubernetes") + _field(2, version.encode())
    return _field(1, b"2.0") + _field(2, info) + _field(8, b"")


def v2_json(version):
    return {"swagger": "2.0", "info": {"title": "Kubernetes", "version": version}, "paths": {},
            "definitions": {}}


def _gv_path(group, version):
    return f"apis/{group}/{version}" if group else f"api/{version}"


def v3_root(registry):
    paths = {}
    for g, versions in registry.group_versions():
        for v in versions:
            p = _gv_path(g, v)
            h = hashlib.sha256(dumpb(v3_doc(registry, g, v))).hexdigest()[:32].upper()
            paths[p] = {"serverRelativeURL": f"/openapi/v3/{p}?hash={h}"}
    return {"paths": paths}


def v3_doc(registry, group, version):
    types = [t for t in registry.all() if t.group == group and t.version == version]
    if not types:
        return None
    paths, schemas = {}, {}
    base = "/" + _gv_path(group, version)
    for t in sorted(types, key=lambda t: t.plural):
        if "patch" not in t.verbs:
            continue  # as kube-apiserver's: no PATCH operation for create-only kinds
        gvk = {"group": group, "version": version, "kind": t.kind}
        media = ["application/json-patch+json", "application/merge-patch+json",
                 "application/apply-patch+yaml"]
        if t.smp is not None:
            media.append("application/strategic-merge-patch+json")
        prefix = f"{base}/namespaces/{{namespace}}/{t.plural}" if t.namespaced else \
            f"{base}/{t.plural}"
        params = [{"name": n, "in": "query", "schema": {"type": "string", "uniqueItems": True}}
                  for n in ("dryRun", "fieldManager", "fieldValidation", "force")]
        op = {"operationId": f"patch{t.kind}", "parameters": params,
              "requestBody": {"content": {m: {"schema": {"type": "object"}}
                                          for m in media if m !=
                                          "application/strategic-merge-patch+json"}},
              "responses": {"200": {"description": "OK"}},
              "x-kubernetes-action": "patch", "x-kubernetes-group-version-kind": gvk}
        paths[f"{prefix}/{{name}}"] = {"patch": op}
        if getattr(t, "schema", None) is not None:
            schemas[_schema_name(group, version, t.kind)] = _crd_schema(t.schema, gvk)
    return {"openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "unversioned"},
            "paths": paths, "components": {"schemas": schemas}}


def _schema_name(group, version, kind):
    """kube-apiserver's name of a custom resource's schema: the group reversed."""
    return ".".join(reversed(group.split("."))) + f".{version}.{kind}"


def _crd_schema(schema, gvk):
    """A custom resource's published schema, as kube-apiserver builds it from the CRD's
    openAPIV3Schema (k8s.io/apiextensions-apiserver pkg/controller/openapi/builder): the
    version's schema with apiVersion, kind and metadata, tagged with its group-version-kind
    (what `kubectl explain` looks a kind up by)."""
    out = dict(schema)
    props = dict(out.get("properties") or {})
    props.setdefault("apiVersion", {"type": "string", "description": "APIVersion defines the "
                                    "versioned schema of this representation of an object."})
    props.setdefault("kind", {"type": "string", "description": "Kind is a string value "
                              "representing the REST resource this object represents."})
    props.setdefault("metadata", {"type": "object", "description": "Standard object's "
                                  "metadata."})
    out["properties"] = props
    out["x-kubernetes-group-version-kind"] = [gvk]
    return out
