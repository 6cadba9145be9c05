#!/usr/bin/env python3
"""Generates src/api/schema/schema_crd.c: the field tables that src/api/schema/schema.c walks to find
unknown fields, taken from the CustomResourceDefinitions an API server enforces for the kinds
jaxset reads.  An API server finds unknown fields of a custom resource by pruning it against the
CRD's structural schema (k8s.io/apiextensions-apiserver pkg/apiserver/schema/pruning): a key is
known when the object schema lists it under `properties`, any key is accepted under
`additionalProperties` (then checked against that schema) or `x-kubernetes-preserve-unknown-
fields`, and an object schema with neither lists no field at all.  The tables keep exactly that.
The root `metadata` is the API server's ObjectMeta (schema.c), not the CRD's `type: object`.

Inputs (regenerate after moving to newer upstream releases; needs PyYAML):

  git -C jobset show v0.12.0:config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml \\
      > jobsets.yaml
  git -C trainer show v1.9.4:manifests/base/crds/kubeflow.org_jaxjobs.yaml > jaxjobs.yaml
  git -C trainer show v2.3.0:manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml \\
      > trainjobs.yaml
  git -C trainer show v2.3.0:manifests/base/crds/trainer.kubeflow.org_trainingruntimes.yaml \\
      > trainingruntimes.yaml
  git -C trainer show v2.3.0:manifests/base/crds/trainer.kubeflow.org_clustertrainingruntimes.yaml \\
      > clustertrainingruntimes.yaml
  scripts/gen_schema_crd.py jobsets.yaml jaxjobs.yaml trainjobs.yaml trainingruntimes.yaml \\
      clustertrainingruntimes.yaml config/crd/*_*.yaml > src/api/schema/schema_crd.c

A kind given by several CRDs gets the fields any of them declares: config/crd's embed the
Kubernetes types of the release scripts/gen_crd.py names (v1.36, as JobSet's and Trainer's; the
Training Operator's JAXJob CRD embeds older ones), and a field only one of them has is one some
supported API server keeps.

(jobset = kubernetes-sigs/jobset, trainer = kubeflow/trainer, which holds the Training Operator
v1 on its release-1.9 branch.)  Identical object schemas (the PodSpec every CRD embeds, say) are
emitted once."""
import os
import re
import sys

import yaml

ROOTS = {  # CRD kind -> (served version, exported C name, upstream file)
    "JobSet": ("v1alpha2", "sch_jobset", "kubernetes-sigs/jobset v0.12.0 "
               "config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml"),
    "JAXJob": ("v1", "sch_jaxjob", "kubeflow/trainer v1.9.4 "
               "manifests/base/crds/kubeflow.org_jaxjobs.yaml"),
    "TrainJob": ("v1alpha1", "sch_trainjob", "kubeflow/trainer v2.3.0 "
                 "manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml"),
    "TrainingRuntime": ("v1alpha1", "sch_training_runtime", "kubeflow/trainer v2.3.0 "
                        "manifests/base/crds/trainer.kubeflow.org_trainingruntimes.yaml"),
    "ClusterTrainingRuntime": ("v1alpha1", "sch_cluster_training_runtime",
                               "kubeflow/trainer v2.3.0 manifests/base/crds/"
                               "trainer.kubeflow.org_clustertrainingruntimes.yaml"),
}
LEAF = ("leaf",)
OBJECT_META = ("objmeta",)


def node(s):
    """A schema as a hashable shape: LEAF, ('obj', open, fields), ('list', elem), ('map', elem)."""
    if "x-kubernetes-embedded-resource" in s:
        sys.exit("gen_schema_crd: x-kubernetes-embedded-resource is not supported")
    open_ = bool(s.get("x-kubernetes-preserve-unknown-fields"))
    if "properties" in s:
        fields = tuple(sorted((k, node(v)) for k, v in s["properties"].items()))
        return ("obj", open_, fields)
    if open_:
        return LEAF
    kind = s.get("type")
    if kind == "object":
        extra = s.get("additionalProperties")
        if extra is None:
            return ("obj", False, ())
        if extra is True or extra == {}:
            return LEAF
        elem = node(extra)
        return LEAF if elem == LEAF else ("map", elem)
    if kind == "array":
        elem = node(s.get("items", {}))
        return LEAF if elem == LEAF else ("list", elem)
    return LEAF


def union(a, b):
    """Shape `a` (upstream's) knowing the fields shape `b` declares too; where `b` keeps
    unknown fields (config/crd's deliberate differences) or is another shape, `a` stands."""
    if a == b or LEAF in (a, b) or a[0] != b[0]:
        return a
    if a[0] in ("list", "map"):
        return (a[0], union(a[1], b[1]))
    if a == OBJECT_META:
        return a
    fa, fb = dict(a[2]), dict(b[2])
    fields = tuple(sorted((k, union(fa[k], fb[k]) if k in fa and k in fb else fa.get(k, fb.get(k)))
                          for k in set(fa) | set(fb)))
    return ("obj", a[1], fields)


def root(schema):
    shape = node(schema)
    fields = tuple(f if f[0] != "metadata" else ("metadata", OBJECT_META) for f in shape[2])
    return ("obj", shape[1], fields)


class Emitter:
    def __init__(self):
        self.names = {}   # obj shape -> C name
        self.paths = {}   # obj shape -> first path seen
        self.order = []
        self.used = set()

    def name_for(self, path):
        segs = [s for s in re.split(r"\.", path.replace("[]", "").replace("{}", "")) if s]
        for n in (1, 2, 3):
            cand = "t_" + "_".join(re.sub(r"\W", "_", s) for s in segs[-n:])
            if cand not in self.used:
                return cand
        i = 2
        while f"{cand}_{i}" in self.used:
            i += 1
        return f"{cand}_{i}"

    def visit(self, shape, path):
        if shape[0] in ("list", "map"):
            self.visit(shape[1], path + ("[]" if shape[0] == "list" else ".{}"))
            return
        if shape[0] != "obj" or shape in self.names:
            return
        name = "t_no_fields" if not shape[2] and not shape[1] else self.name_for(path)
        self.used.add(name)
        self.names[shape] = name
        self.paths[shape] = path if shape[2] or shape[1] else "an object schema with no field"
        self.order.append(shape)
        for key, child in shape[2]:
            self.visit(child, f"{path}.{key}")

    def visit_root(self, shape, kind):
        for key, child in shape[2]:
            self.visit(child, f"{kind}.{key}")

    def field(self, key, child):
        if child == OBJECT_META:
            return f'    {{"{key}", SCH_OBJ, &sch_object_meta}},'
        if child == LEAF:
            return f'    {{"{key}", SCH_LEAF, NULL}},'
        kind = {"obj": "SCH_OBJ", "list": "SCH_LIST", "map": "SCH_MAP"}[child[0]]
        elem = child if child[0] == "obj" else child[1]
        if elem[0] != "obj":
            sys.exit(f"gen_schema_crd: {key}: nested lists/maps are not supported")
        return f'    {{"{key}", {kind}, &{self.names[elem]}}},'

    def table(self, shape, name, comment, static):
        out = [f"/* {comment} */"]
        if shape[2]:
            out.append(f"static const struct sch_field {name}_f[] = {{")
            out += [self.field(k, c) for k, c in shape[2]]
            out.append("};")
        fields = f"{name}_f" if shape[2] else "NULL"
        open_ = "true" if shape[1] else "false"
        out.append(f"{static}const struct sch_type {name} = "
                   f"{{{fields}, {len(shape[2])}, {open_}}};")
        return out + [""]

    def emit(self, roots, sources):
        out = ["/* schema_crd: GENERATED by scripts/gen_schema_crd.py -- do not edit.",
               " * Field tables of the CustomResourceDefinitions of (see schema.h):"]
        out += [f" *   {s}" for s in sources]
        out += [" */", '#include "api/schema/schema.h"', "", "#include <stddef.h>", ""]
        out += [f"static const struct sch_type {self.names[s]};" for s in self.order]
        out.append("")
        for shape in self.order:
            out += self.table(shape, self.names[shape], self.paths[shape], "static ")
        for kind, cname, shape in roots:
            out += self.table(shape, cname, kind, "")
        return "\n".join(out).rstrip() + "\n"


def main():
    em = Emitter()
    shapes, sources = {}, []
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            crd = yaml.load(f, Loader=yaml.CSafeLoader)
        kind = crd["spec"]["names"]["kind"]
        version, cname, origin = ROOTS[kind]
        v = next(v for v in crd["spec"]["versions"] if v["name"] == version)
        if kind in shapes:   # config/crd's own CRD of a kind, after upstream's
            origin = f"and jaxset's config/crd/{os.path.basename(path)}"
        sources.append(f"{crd['spec']['group']}/{version} {kind}: {origin}")
        shape = root(v["schema"]["openAPIV3Schema"])
        shapes[kind] = union(shapes[kind], shape) if kind in shapes else shape
    roots = [(kind, ROOTS[kind][1], shape) for kind, shape in shapes.items()]
    for kind, _, shape in roots:
        em.visit_root(shape, kind)
    sys.stdout.write(em.emit(roots, sources))


if __name__ == "__main__":
    main()
