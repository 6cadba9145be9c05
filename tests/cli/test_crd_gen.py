"""config/crd is what scripts/gen_crd.py makes of config/crd/src:

- always: the generator converts a small OpenAPI v3 document as controller-gen converts Go
  types (refs inlined with the field's description, IntOrString and Quantity as
  int-or-string, an embedded ObjectMeta as its five fields, required lists sorted, openapi-gen's
  zero defaults of required fields and `{}` dropped while a marker's default stays,
  strategic-merge hints dropped, list and map types kept), lays a source's keys over the type
  it names, and refuses a type the documents lack;
- with Kubernetes' OpenAPI v3 documents of core/v1 and batch/v1 (KUBE_OPENAPI_V3 naming a
  folder with kubernetes/kubernetes' api__v1_openapi.json and apis__batch__v1_openapi.json, or
  KUBEBUILDER_ASSETS a kube-apiserver serving them): regenerating gives config/crd byte for
  byte (the CRDs name v1.28, so the documents must be 1.28's)."""
import json
import os
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "kube"))
from clitest import SRC, Suite  # noqa: E402

GEN = os.path.join(SRC, "scripts", "gen_crd.py")
CRD_DIR = os.path.join(SRC, "config", "crd")
P = "#/components/schemas/"

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


def gen(src_dir, out_dir, docs):
    return subprocess.run([sys.executable, GEN, "--kube", "vX", "--src", src_dir, "--out",
                           out_dir, *docs], capture_output=True, text=True, timeout=300)


def check_conversion(suite):
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "src"), os.path.join(tmp, "out")
        os.mkdir(src)
        os.mkdir(out)
        with open(os.path.join(src, "a.yaml"), "w", encoding="utf-8") as f:
            f.write("# A header.\n" + yaml.safe_dump(SOURCE))
        doc = os.path.join(tmp, "doc.json")
        with open(doc, "w", encoding="utf-8") as f:
            json.dump(DOC, f)
        p = gen(src, out, [doc])
        suite.check("the generator runs", p.returncode == 0, p.stderr)
        if p.returncode:
            return
        with open(os.path.join(out, "a.yaml"), encoding="utf-8") as f:
            text = f.read()
        suite.check("the output names its source and the Kubernetes release, then the header",
                    text.startswith("# GENERATED by scripts/gen_crd.py from config/crd/src/a.yaml"
                                    " and Kubernetes vX's") and "\n# A header.\n" in text, text)
        props = yaml.safe_load(text)["spec"]["versions"][0]["schema"]["openAPIV3Schema"][
            "properties"]
        pod = props["pod"]
        want = {
            "description": "Ours.", "type": "object", "required": ["alpha", "zeta"],
            "properties": {
                "alpha": {"type": "string", "maxLength": 3},
                "items": {"type": "array", "items": {
                    "description": "An item.", "type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string"}},
                    "x-kubernetes-map-type": "atomic"},
                    "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-list-type": "map"},
                "limits": {"type": "object", "additionalProperties": {
                    "anyOf": [{"type": "integer"}, {"type": "string"}],
                    "pattern": r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|"
                               r"[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$",
                    "x-kubernetes-int-or-string": True}},
                "meta": {"description": "Metadata.", "type": "object", "properties": {
                    "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
                    "finalizers": {"type": "array", "items": {"type": "string"}},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "name": {"type": "string"}, "namespace": {"type": "string"}}},
                "port": {"description": "The port.",
                         "anyOf": [{"type": "integer"}, {"type": "string"}],
                         "x-kubernetes-int-or-string": True},
                "protocol": {"type": "string", "default": "TCP"},
                "service": {"type": "string", "default": ""},
                "when": {"description": "When.", "type": "string", "format": "date-time"},
                "zeta": {"type": "integer", "format": "int32"}}}
        suite.check("a Kubernetes type becomes what controller-gen writes for it", pod == want,
                    json.dumps(pod, indent=1))
        suite.check("a source node names another source's node", props["again"] == pod,
                    props["again"])
        bad = dict(SOURCE, spec={"versions": [{"name": "v1", "schema": {"openAPIV3Schema": {
            "x-jaxset-type": "t.Missing"}}}]})
        with open(os.path.join(src, "a.yaml"), "w", encoding="utf-8") as f:
            yaml.safe_dump(bad, f)
        p = gen(src, out, [doc])
        suite.check("a type the documents lack is refused by name",
                    p.returncode != 0 and "t.Missing" in p.stderr, p.stderr)


def openapi_docs(tmp):
    """Paths of Kubernetes' core/v1 and batch/v1 OpenAPI v3 documents, or None."""
    folder = os.environ.get("KUBE_OPENAPI_V3")
    if folder:
        return [os.path.join(folder, "api__v1_openapi.json"),
                os.path.join(folder, "apis__batch__v1_openapi.json")]
    from envtest import KubeAPIServer, assets_dir
    if not assets_dir():
        return None
    server = KubeAPIServer(assets_dir(), gc=False)
    try:
        out = []
        for name, path in (("core", "/openapi/v3/api/v1"), ("batch", "/openapi/v3/apis/batch/v1")):
            r = server.get(path)
            if r.status != 200:
                raise RuntimeError(f"{path}: {r}")
            out.append(os.path.join(tmp, f"{name}.json"))
            with open(out[-1], "wb") as f:
                f.write(r.raw)
        return out
    finally:
        server.stop()


def check_committed(suite):
    with tempfile.TemporaryDirectory() as tmp:
        docs = openapi_docs(tmp)
        if not docs:
            print("skipped: regenerating config/crd (neither KUBE_OPENAPI_V3 nor "
                  "KUBEBUILDER_ASSETS names Kubernetes' OpenAPI v3 documents)")
            return
        out = os.path.join(tmp, "out")
        os.mkdir(out)
        p = gen(os.path.join(CRD_DIR, "src"), out, docs)
        suite.check("config/crd regenerates", p.returncode == 0, p.stderr)
        for name in sorted(os.listdir(out)):
            with open(os.path.join(out, name), encoding="utf-8") as f:
                got = f.read().replace("Kubernetes vX's", "Kubernetes v1.28's")
            with open(os.path.join(CRD_DIR, name), encoding="utf-8") as f:
                have = f.read()
            suite.check(f"config/crd/{name} is what the generator makes of its source",
                        got == have, f"regenerate it: docs/development.md ({len(got)} bytes "
                                     f"generated, {len(have)} committed)")


def main():
    suite = Suite()
    check_conversion(suite)
    check_committed(suite)
    suite.finish()


if __name__ == "__main__":
    main()
