#!/usr/bin/env python3
"""Generates the CustomResourceDefinitions of config/crd from their sources in config/crd/src
and Kubernetes' OpenAPI document (v2, or v3 documents), as controller-gen
(kubernetes-sigs/controller-tools) generates upstream's CRDs from Go types.

A source is a CRD whose schema names Kubernetes types instead of spelling them out: a schema
node holding `x-jaxset-type: NAME` becomes the schema of NAME, and the node's other keys are
laid over it (a `properties` entry over the field of that name, any other key replacing).
NAME is either a component of the OpenAPI documents (`io.k8s.api.batch.v1.JobSpec`), or
`FILE#/a/b` (the node at that JSON pointer of another source, say a JobSet's spec, itself
expanded).  A Kubernetes type becomes what controller-gen writes for it:

- `$ref`s (v3: `allOf: [{$ref}]`, v2: a `$ref` to `#/definitions/NAME` beside the field's
  description) are inlined; the field's description wins over the type's;
- intstr.IntOrString: `anyOf` integer/string with `x-kubernetes-int-or-string: true`;
  resource.Quantity: the same with Quantity's pattern; meta/v1 Time and MicroTime: a
  date-time string; an embedded ObjectMeta (a pod template's metadata): the five fields a
  CRD may hold there (annotations, finalizers, labels, name, namespace);
- `required` (sorted), `format`, `x-kubernetes-list-type`, `-list-map-keys` and `-map-type`
  are kept; so is a default, unless it is `{}` or the zero value of a required field
  (openapi-gen writes those for non-pointer members; controller-gen writes only `+default`
  markers, such as `TCP` or a gRPC probe's `service: ""`);
- strategic-merge-patch hints, group-version-kinds and unions are dropped: a CRD carries none;
  so are `enum`s and the "Possible enum values" a kube-apiserver with OpenAPIEnums adds to
  their descriptions (controller-gen writes neither for `+enum` types: a newer server may
  accept more values);
- a v2 document carries no defaults and flattens an embedded struct without its markers:
  V2_MARKERS adds what controller-gen writes there for core/v1 types (`+default` values such as
  a port's `TCP`, the `atomic` map type an embedded LocalObjectReference brings).

Usage (the Kubernetes input is not in the repository: config/crd is made from release-1.36's
OpenAPI v2, kubernetes/kubernetes api/openapi-spec/swagger.json at that release, or a client's
copy such as kubernetes-client/python kubernetes/swagger.json.unprocessed; a kube-apiserver
serves its own at /openapi/v2, and v3 documents at /openapi/v3/api/v1 and .../apis/batch/v1):

  scripts/gen_crd.py --kube v1.36 swagger.json          # writes config/crd/*.yaml
  scripts/gen_crd.py --kube v1.36 --out DIR swagger.json   # elsewhere (tests compare)

An argument may also be an http(s) URL of such a document."""
import argparse
import copy
import json
import os
import re
import sys
import urllib.request

import yaml

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "config", "crd")
MARK = "x-jaxset-type"
QUANTITY = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
            r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")
META = "io.k8s.apimachinery.pkg.apis.meta.v1."
SPECIAL = {
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
        "anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True},
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {
        "anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": QUANTITY,
        "x-kubernetes-int-or-string": True},
    META + "Time": {"type": "string", "format": "date-time"},
    META + "MicroTime": {"type": "string", "format": "date-time"},
    META + "ObjectMeta": {"type": "object", "properties": {
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
        "finalizers": {"type": "array", "items": {"type": "string"}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "name": {"type": "string"},
        "namespace": {"type": "string"}}},
}
# What a Kubernetes OpenAPI v2 (swagger) document does not say but controller-gen writes for the
# types of k8s.io/api core/v1 (types.go, release-1.36), laid over the type's schema: the values
# of `+default` markers (v2 carries no defaults), the `+structType=atomic` of an embedded
# LocalObjectReference (controller-gen merges an embedded struct's schema, markers included,
# into the embedding one's; openapi-gen flattens its fields only), and the description of the
# named string type Capability (openapi-gen writes a plain string).
CORE = "io.k8s.api.core.v1."
LOCAL_REF = {"properties": {"name": {"default": ""}}, "x-kubernetes-map-type": "atomic"}
CAPABILITY = {"items": {"description": "Capability represent POSIX capabilities type"}}
V2_MARKERS = {CORE + k: v for k, v in {
    "AzureDiskVolumeSource": {"properties": {"fsType": {"default": "ext4"},
                                             "readOnly": {"default": False}}},
    "Capabilities": {"properties": {"add": CAPABILITY, "drop": CAPABILITY}},
    "ContainerPort": {"properties": {"protocol": {"default": "TCP"}}},
    "FileKeySelector": {"properties": {"optional": {"default": False}}},
    "GRPCAction": {"properties": {"service": {"default": ""}}},
    "ISCSIVolumeSource": {"properties": {"iscsiInterface": {"default": "default"}}},
    "RBDVolumeSource": {"properties": {"keyring": {"default": "/etc/ceph/keyring"},
                                       "pool": {"default": "rbd"},
                                       "user": {"default": "admin"}}},
    "ScaleIOVolumeSource": {"properties": {"fsType": {"default": "xfs"},
                                           "storageMode": {"default": "ThinProvisioned"}}},
    **{t: LOCAL_REF for t in ("LocalObjectReference", "ConfigMapEnvSource", "SecretEnvSource",
                              "ConfigMapVolumeSource", "ConfigMapProjection", "SecretProjection",
                              "ConfigMapKeySelector", "SecretKeySelector")},
}.items()}
KEEP = ("description", "type", "format", "default", "required", "properties", "items",
        "additionalProperties", "x-kubernetes-list-type", "x-kubernetes-list-map-keys",
        "x-kubernetes-map-type")
ENUMS = "\n\nPossible enum values:"   # what OpenAPIEnums appends to a description
ORDER = KEEP[:4] + ("enum",) + KEEP[4:]   # the key order of the output


def zero(v):
    return v is False or (type(v) is int and v == 0) or v in ("", {}, [])


class Generator:
    def __init__(self, components, sources, v2=False):
        self.components = components   # OpenAPI name -> schema
        self.markers = V2_MARKERS if v2 else {}
        self.sources = sources         # file name -> source CRD
        self.stack = []

    def core(self, name):
        """The CRD schema of an OpenAPI component, refs inlined."""
        if name in SPECIAL:
            return copy.deepcopy(SPECIAL[name])
        if name not in self.components:
            sys.exit(f"gen_crd: {name}: not in the OpenAPI documents given")
        if name in self.stack:
            sys.exit(f"gen_crd: {name} refers to itself ({' -> '.join(self.stack)})")
        self.stack.append(name)
        out = self.convert(self.components[name])
        self.stack.pop()
        return overlay(out, self.markers[name]) if name in self.markers else out

    def convert(self, s, required=False):
        ref = s.get("$ref") or next((a["$ref"] for a in s.get("allOf", []) if "$ref" in a),
                                    None)
        if ref:
            out = self.core(ref.rsplit("/", 1)[-1])
            if ref.rsplit("/", 1)[-1] in SPECIAL:
                out.pop("description", None)
        else:
            out = {k: s[k] for k in KEEP if k in s and k not in
                   ("properties", "items", "additionalProperties")}
            if s.get("format") == "int-or-string":
                out.pop("format")
            if "required" in s:
                out["required"] = sorted(s["required"])
            if "properties" in s:
                out["properties"] = {k: self.convert(v, k in s.get("required", ()))
                                     for k, v in sorted(s["properties"].items())}
            for k in ("items", "additionalProperties"):
                if isinstance(s.get(k), dict):
                    out[k] = self.convert(s[k], True)   # an item's zero default too
        for k in ("description", "default", "x-kubernetes-list-type",
                  "x-kubernetes-list-map-keys", "x-kubernetes-map-type"):
            if k in s and (ref or k not in out):
                out[k] = s[k]
        if "description" in out:
            out["description"] = out["description"].split(ENUMS)[0]
        if "default" in out and (out["default"] == {} or required and zero(out["default"])):
            out.pop("default")
        return order(out)

    def named(self, name):
        if "#" not in name:
            return self.core(name)
        file, pointer = name.split("#", 1)
        node = self.sources[file]
        for part in pointer.strip("/").split("/"):
            node = node[int(part)] if isinstance(node, list) else node[part]
        return self.expand(copy.deepcopy(node))

    def expand(self, node):
        """`node` with every x-jaxset-type below it replaced."""
        if isinstance(node, list):
            return [self.expand(v) for v in node]
        if not isinstance(node, dict):
            return node
        node = {k: self.expand(v) for k, v in node.items()}
        if MARK not in node:
            return node
        base = self.named(node.pop(MARK))
        return overlay(base, node)


def overlay(base, top):
    """`top`'s keys over `base`: properties, items and additionalProperties merge."""
    out = dict(base)
    for k, v in top.items():
        if k == "properties" and isinstance(out.get(k), dict):
            props = dict(out[k])
            for name, sub in v.items():
                props[name] = overlay(props[name], sub) if name in props else sub
            out[k] = props
        elif k in ("items", "additionalProperties") and isinstance(out.get(k), dict):
            out[k] = overlay(out[k], v)
        else:
            out[k] = v
    return order(out)


def order(s):
    """Keys in the order the source files use: description, type, ..., x-kubernetes-*."""
    rank = {k: i for i, k in enumerate(ORDER)}
    return dict(sorted(s.items(), key=lambda kv: (kv[0].startswith("x-"),
                                                   rank.get(kv[0], len(ORDER)), kv[0])))


# ---------------------------------------------------------------- YAML out

PLAIN = re.compile(r"[A-Za-z_/][A-Za-z0-9_./-]*\Z")
WORDS = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"}


def scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    if v is None:
        return "null"
    if PLAIN.match(v) and v.lower() not in WORDS:
        return v
    return json.dumps(v)


def emit(v, ind, out):
    """Block-style YAML; strings that are not plain words are JSON (double-quoted YAML)."""
    pad = " " * ind
    if isinstance(v, dict):
        for k, x in v.items():
            if isinstance(x, (dict, list)) and x:
                out.append(f"{pad}{k}:")
                emit(x, ind + 2 if isinstance(x, dict) else ind, out)
            else:
                text = json.dumps(x) if isinstance(x, (dict, list)) else scalar(x)   # {} or []
                out.append(f"{pad}{k}: {text}")
    else:
        for x in v:
            if isinstance(x, dict) and x:
                sub = []
                emit(x, ind + 2, sub)
                out.append(f"{pad}- {sub[0].lstrip()}")
                out += sub[1:]
            else:
                out.append(f"{pad}- {scalar(x)}")


def header(path):
    lines = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                break
            lines.append(line)
    return lines


def load_openapi(args):
    """The schemas of the documents by name, and whether any is OpenAPI v2 (swagger)."""
    components, v2 = {}, False
    for a in args:
        if a.startswith(("http://", "https://")):
            with urllib.request.urlopen(a, timeout=60) as r:
                doc = json.load(r)
        else:
            with open(a, encoding="utf-8") as f:
                doc = json.load(f)
        components.update(doc.get("components", {}).get("schemas", {}))
        components.update(doc.get("definitions", {}))   # v2: refs are #/definitions/NAME
        v2 = v2 or "swagger" in doc
    return components, v2


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", default=os.path.join(SRC, "src"))
    ap.add_argument("--out", default=SRC)
    ap.add_argument("--kube", required=True,
                    help="the Kubernetes release of the documents, named in the headers (v1.36)")
    ap.add_argument("openapi", nargs="+",
                    help="Kubernetes' OpenAPI v2 document or v3 documents (files, URLs)")
    a = ap.parse_args()
    names = sorted(n for n in os.listdir(a.src) if n.endswith(".yaml"))
    sources = {}
    for n in names:
        with open(os.path.join(a.src, n), encoding="utf-8") as f:
            sources[n] = yaml.load(f, Loader=yaml.CSafeLoader)
    components, v2 = load_openapi(a.openapi)
    gen = Generator(components, sources, v2)
    for n in names:
        body = []
        emit(gen.expand(sources[n]), 0, body)
        text = (f"# GENERATED by scripts/gen_crd.py from config/crd/src/{n} and Kubernetes "
                f"{a.kube}'s\n# OpenAPI {'v2' if v2 else 'v3'} (core types): edit the source, "
                "not this file.\n#\n" +
                "".join(header(os.path.join(a.src, n))) + "\n".join(body) + "\n")
        with open(os.path.join(a.out, n), "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
