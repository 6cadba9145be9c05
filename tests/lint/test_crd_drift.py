"""The Trainer CRDs jaxset serves (`jaxset crds`, config/crd) and the schema tables `validate`
uses (src/api/schema/schema_crd.c, generated from upstream's CRDs) must not drift apart:

- both name the same kubeflow/trainer release;
- every field the served CRDs declare is a field the tables know (a document holding every
  declared field gets no "unknown field" from `validate`);
- the served CRDs carry every OpenAPI bound, enum, pattern and CEL rule of that release's CRDs
  outside the embedded pod specs and Job templates (tests/data/crd_rules, the list of
  upstream's rules), at the same path."""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from clitest import BIN, SRC, Suite, run  # noqa: E402

RULES = os.path.join(SRC, "tests", "data", "crd_rules", "trainer-v2.3.0.json")
KEYS = ("minimum", "maximum", "maxLength", "minLength", "maxItems", "minItems", "enum",
        "pattern", "x-kubernetes-validations")


def served():
    """{file name: CRD} of `jaxset crds`, keyed by config/crd's file names."""
    p = subprocess.run([BIN, "crds"], capture_output=True, text=True, timeout=30, check=True)
    out = {}
    for crd in yaml.safe_load_all(p.stdout):
        if crd and crd["spec"]["group"] == "trainer.kubeflow.org":
            out[f"trainer.kubeflow.org_{crd['spec']['names']['plural']}.yaml"] = crd
    return out


def root(crd):
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def at(schema, path):
    """The sub-schema at a rules-list path (".spec.trainer.command[]", "." the root)."""
    s = schema
    for part in re.findall(r"\.([^.\[{]+)|(\[\])|(\{\})", path):
        name, items, values = part
        if name:
            s = (s.get("properties") or {}).get(name)
        elif items:
            s = s.get("items")
        else:
            s = s.get("additionalProperties")
        if not isinstance(s, dict):
            return None
    return s


# CEL's reserved words, which a rule selects as fields only escaped on kube-apiserver 1.28
# (`t.metadata.__namespace__`; apiextensions' CEL docs): the served CRDs escape them so that
# they install there too, and mean the same as upstream's unescaped rule on newer servers.
RESERVED = re.compile(r"\b__(as|break|const|continue|else|for|function|if|import|let|loop|"
                      r"package|namespace|return|var|void|while)__\b")


def normal(key, value):
    if key == "x-kubernetes-validations":
        return sorted((RESERVED.sub(r"\1", r["rule"]), r.get("message")) for r in value)
    return value


def check_rules(suite, crds, upstream):
    for name, rules in upstream["crds"].items():
        crd = crds.get(name)
        suite.check(f"{name}: served", crd is not None, sorted(crds))
        if crd is None:
            continue
        for r in rules:
            s = at(root(crd), r["path"]) if r["path"] != "." else root(crd)
            got = None if s is None else s.get(r["key"])
            ok = got is not None and normal(r["key"], got) == normal(r["key"], r["value"])
            suite.check(f"{name}: {r['path']} {r['key']}", ok,
                        f"upstream {upstream['upstream']['tag']}: {r['value']!r}, served: {got!r}")


def check_release(suite, crds, tag):
    with open(os.path.join(SRC, "src", "api", "schema", "schema_crd.c"),
              encoding="utf-8") as f:
        tables = f.read(2000)
    for name, crd in crds.items():
        with open(os.path.join(SRC, "config", "crd", name), encoding="utf-8") as f:
            header = f.read(600)
        suite.check(f"{name}: served CRD is kubeflow/trainer {tag}", f"({tag}" in header, header)
        suite.check(f"{name}: validate's tables are kubeflow/trainer {tag}",
                    f"kubeflow/trainer {tag} manifests/base/crds/{name}" in tables, tables)


def sample(s, depth=0):
    """A value holding every field schema `s` declares (one item per list)."""
    if depth > 40:
        return None
    if "properties" in s:
        return {k: sample(v, depth + 1) for k, v in s["properties"].items()}
    if s.get("type") == "array":
        return [sample(s.get("items") or {}, depth + 1)]
    if s.get("type") == "object":
        return {}
    return None


def check_fields(suite, crds):
    """Every declared field is known to validate's tables: no "unknown field" for a document
    holding all of them (values are placeholders: only unknown fields are looked for)."""
    for name in ("trainer.kubeflow.org_trainjobs.yaml",
                 "trainer.kubeflow.org_clustertrainingruntimes.yaml"):
        spec = sample(root(crds[name])["properties"]["spec"])
        kind = crds[name]["spec"]["names"]["kind"]
        doc = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": kind,
               "metadata": {"name": "x"}, "spec": spec}
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write(json.dumps(doc))
        try:
            rc, out, err = run("validate", "--cluster", f.name)
        finally:
            os.unlink(f.name)
        unknown = [line for line in err.splitlines() if "unknown field" in line]
        suite.check(f"{name}: every served field is known to validate", not unknown,
                    "\n".join(unknown[:20]))


def main():
    suite = Suite()
    with open(RULES, encoding="utf-8") as f:
        upstream = json.load(f)
    crds = served()
    check_release(suite, crds, upstream["upstream"]["tag"])
    check_rules(suite, crds, upstream)
    check_fields(suite, crds)
    suite.finish()


if __name__ == "__main__":
    main()
