"""config/crd is what scripts/gen_crd.py makes of config/crd/src:

- always: the generator converts a small OpenAPI v3 document and a small v2 (swagger) one as
  controller-gen converts Go types (refs inlined with the field's description, IntOrString and
  Quantity as int-or-string, an embedded ObjectMeta as its five fields, required lists sorted,
  openapi-gen's zero defaults of required fields and `{}` dropped while a marker's default
  stays, strategic-merge hints dropped, list and map types kept; from v2, which has no defaults,
  the `+default` and embedded `atomic` markers of core/v1 types added), lays a source's keys
  over the type it names, and refuses a type the documents lack;
- with the input config/crd is made from, Kubernetes release-1.36's OpenAPI v2 document
  (KUBE_OPENAPI naming it: kubernetes/kubernetes api/openapi-spec/swagger.json at that release,
  or kubernetes-client/python's kubernetes/swagger.json.unprocessed of its release-1.36):
  regenerating gives config/crd byte for byte."""
import json
import os
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from clitest import SRC, Suite  # noqa: E402

GEN = os.path.join(SRC, "scripts", "gen_crd.py")
CRD_DIR = os.path.join(SRC, "config", "crd")
P = "#/components/schemas/"
D = "#/definitions/"
KUBE = "v1.36"   # the release config/crd is generated from (docs/development.md)
INTSTR = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
META = "io.k8s.apimachinery.pkg.apis.meta.v1."

DOC = {"components": {"schemas": {
    "t.Pod": {"description": "A pod.", "type": "object", "required": ["zeta", "alpha"],
              "properties": {
                  "alpha": {"type": "string", "default": ""},
                  "zeta": {"type": "integer", "format": "int32", "default": 0},
                  "service": {"type": "string", "default": ""},
                  "protocol": {"type": "string", "default": "TCP"},
                  "port": {"allOf": [{"$ref": P + "io.k8s.apimachinery.pkg.util.intstr."
                                              "IntOrString"}], "description": "The port."},
                  "limits": {"type": "object", "additionalProperties": {
                      "allOf": [{"$ref": P + "io.k8s.apimachinery.pkg.api.resource."
                                             "Quantity"}], "default": {}}},
                  "meta": {"allOf": [{"$ref": P + "io.k8s.apimachinery.pkg.apis.meta.v1."
                                                  "ObjectMeta"}], "default": {},
                           "description": "Metadata."},
                  "items": {"type": "array", "items": {"allOf": [{"$ref": P + "t.Item"}],
                                                       "default": {}},
                            "x-kubernetes-list-type": "map",
                            "x-kubernetes-list-map-keys": ["name"],
                            "x-kubernetes-patch-strategy": "merge",
                            "x-kubernetes-patch-merge-key": "name"},
                  "when": {"allOf": [{"$ref": P + "io.k8s.apimachinery.pkg.apis.meta.v1."
                                                  "Time"}], "description": "When."}}},
    "t.Item": {"description": "An item.", "type": "object", "required": ["name"],
               "properties": {"name": {"type": "string", "default": ""}},
               "x-kubernetes-map-type": "atomic"},
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
        "description": "long", "format": "int-or-string",
        "oneOf": [{"type": "integer"}, {"type": "string"}]},
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {
        "description": "long", "oneOf": [{"type": "string"}, {"type": "number"}]},
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"type": "object", "properties": {
        "uid": {"type": "string"}}},
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time": {"description": "Time.", "type": "string",
                                                  "format": "date-time"},
}}}

SOURCE = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
          "spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": {
              "type": "object", "properties": {
                  "pod": {"x-jaxset-type": "t.Pod", "description": "Ours.",
                          "properties": {"alpha": {"maxLength": 3}}},
                  "again": {"x-jaxset-type": "a.yaml#/spec/versions/0/schema/"
                                             "openAPIV3Schema/properties/pod"}}}}}]}}

# The same kind of types as OpenAPI v2 writes them: refs beside descriptions, no defaults.
DOC_V2 = {"swagger": "2.0", "definitions": {
    "t.Pod": {"description": "A pod.", "type": "object", "required": ["zeta", "alpha"],
              "properties": {
                  "alpha": {"type": "string"},
                  "zeta": {"type": "integer", "format": "int32"},
                  "port": {"$ref": D + INTSTR, "description": "The port."},
                  "limits": {"type": "object", "additionalProperties": {"$ref": D + QUANTITY}},
                  "meta": {"$ref": D + META + "ObjectMeta", "description": "Metadata."},
                  "ports": {"type": "array",
                            "items": {"$ref": D + "io.k8s.api.core.v1.ContainerPort"},
                            "x-kubernetes-list-type": "map",
                            "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
                            "x-kubernetes-patch-strategy": "merge",
                            "x-kubernetes-patch-merge-key": "containerPort"},
                  "env": {"$ref": D + "io.k8s.api.core.v1.ConfigMapEnvSource",
                          "description": "Env."},
                  "when": {"$ref": D + META + "Time", "description": "When."}}},
    "io.k8s.api.core.v1.ContainerPort": {
        "description": "A port.", "type": "object", "required": ["containerPort"],
        "properties": {"containerPort": {"type": "integer", "format": "int32"},
                       "protocol": {"type": "string"}}},
    "io.k8s.api.core.v1.ConfigMapEnvSource": {
        "description": "From a config map.", "type": "object",
        "properties": {"name": {"type": "string"}, "optional": {"type": "boolean"}}},
    INTSTR: {"description": "long", "format": "int-or-string", "type": "string"},
    QUANTITY: {"description": "long", "type": "string"},
    META + "ObjectMeta": {"type": "object", "properties": {"uid": {"type": "string"}}},
    META + "Time": {"description": "Time.", "type": "string", "format": "date-time"},
}}

# What both documents become (a source's `description` and `maxLength` laid over t.Pod).
INT_OR_STRING = [{"type": "integer"}, {"type": "string"}]
WANT_COMMON = {
    "alpha": {"type": "string", "maxLength": 3},
    "limits": {"type": "object", "additionalProperties": {
        "anyOf": INT_OR_STRING,
        "pattern": r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|"
                   r"[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$",
        "x-kubernetes-int-or-string": True}},
    "meta": {"description": "Metadata.", "type": "object", "properties": {
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
        "finalizers": {"type": "array", "items": {"type": "string"}},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "name": {"type": "string"}, "namespace": {"type": "string"}}},
    "port": {"description": "The port.", "anyOf": INT_OR_STRING,
             "x-kubernetes-int-or-string": True},
    "when": {"description": "When.", "type": "string", "format": "date-time"},
    "zeta": {"type": "integer", "format": "int32"}}
WANT_V3 = dict(
    WANT_COMMON,
    items={"type": "array", "items": {
        "description": "An item.", "type": "object", "required": ["name"],
        "properties": {"name": {"type": "string"}}, "x-kubernetes-map-type": "atomic"},
        "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-list-type": "map"},
    protocol={"type": "string", "default": "TCP"},
    service={"type": "string", "default": ""})
WANT_V2 = dict(
    WANT_COMMON,
    env={"description": "Env.", "type": "object", "properties": {
        "name": {"type": "string", "default": ""}, "optional": {"type": "boolean"}},
        "x-kubernetes-map-type": "atomic"},   # LocalObjectReference's, embedded
    ports={"type": "array", "items": {
        "description": "A port.", "type": "object", "required": ["containerPort"],
        "properties": {"containerPort": {"type": "integer", "format": "int32"},
                       "protocol": {"type": "string", "default": "TCP"}}},
        "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
        "x-kubernetes-list-type": "map"})


def gen(src_dir, out_dir, docs, kube="vX"):
    return subprocess.run([sys.executable, GEN, "--kube", kube, "--src", src_dir, "--out",
                           out_dir, *docs], capture_output=True, text=True, timeout=300)


def check_conversion(suite, version, document, fields):
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "src"), os.path.join(tmp, "out")
        os.mkdir(src)
        os.mkdir(out)
        with open(os.path.join(src, "a.yaml"), "w", encoding="utf-8") as f:
            f.write("# A header.\n" + yaml.safe_dump(SOURCE))
        doc = os.path.join(tmp, "doc.json")
        with open(doc, "w", encoding="utf-8") as f:
            json.dump(document, f)
        p = gen(src, out, [doc])
        suite.check(f"{version}: the generator runs", p.returncode == 0, p.stderr)
        if p.returncode:
            return
        with open(os.path.join(out, "a.yaml"), encoding="utf-8") as f:
            text = f.read()
        suite.check(f"{version}: the output names its source, the Kubernetes release and the "
                    "document's version, then the header",
                    text.startswith("# GENERATED by scripts/gen_crd.py from config/crd/src/a.yaml"
                                    f" and Kubernetes vX's\n# OpenAPI {version} ") and
                    "\n# A header.\n" in text, text)
        props = yaml.safe_load(text)["spec"]["versions"][0]["schema"]["openAPIV3Schema"][
            "properties"]
        pod = props["pod"]
        want = {"description": "Ours.", "type": "object", "required": ["alpha", "zeta"],
                "properties": fields}
        suite.check(f"{version}: a Kubernetes type becomes what controller-gen writes for it",
                    pod == want,
                    json.dumps(pod, indent=1))
        suite.check(f"{version}: a source node names another source's node",
                    props["again"] == pod,
                    props["again"])
        bad = dict(SOURCE, spec={"versions": [{"name": "v1", "schema": {"openAPIV3Schema": {
            "x-jaxset-type": "t.Missing"}}}]})
        with open(os.path.join(src, "a.yaml"), "w", encoding="utf-8") as f:
            yaml.safe_dump(bad, f)
        p = gen(src, out, [doc])
        suite.check(f"{version}: a type the documents lack is refused by name",
                    p.returncode != 0 and "t.Missing" in p.stderr, p.stderr)


def check_committed(suite):
    doc = os.environ.get("KUBE_OPENAPI")
    if not doc:
        print(f"skipped: regenerating config/crd (KUBE_OPENAPI does not name Kubernetes {KUBE}'s "
              "OpenAPI v2 document, the input config/crd is made from: docs/development.md)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        p = gen(os.path.join(CRD_DIR, "src"), tmp, [doc], KUBE)
        suite.check("config/crd regenerates", p.returncode == 0, p.stderr)
        for name in sorted(os.listdir(tmp)):
            with open(os.path.join(tmp, name), encoding="utf-8") as f:
                got = f.read()
            with open(os.path.join(CRD_DIR, name), encoding="utf-8") as f:
                have = f.read()
            suite.check(f"config/crd/{name} is what the generator makes of its source",
                        got == have, f"regenerate it: docs/development.md ({len(got)} bytes "
                                     f"generated, {len(have)} committed)")


def main():
    suite = Suite()
    check_conversion(suite, "v3", DOC, WANT_V3)
    check_conversion(suite, "v2", DOC_V2, WANT_V2)
    check_committed(suite)
    suite.finish()


if __name__ == "__main__":
    main()
