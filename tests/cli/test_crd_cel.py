"""The CEL rules of the CRDs jaxset serves (`jaxset crds`, config/crd) compile on every
kube-apiserver from 1.28 on: no rule selects a property named by a CEL reserved word
(`t.metadata.namespace`) without escaping it (`t.metadata.__namespace__`). kube-apiserver before
1.32 refuses such a CRD ("compilation failed: undefined field 'namespace'"); 1.32 and later
read both spellings."""
import os
import re
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.dirname(__file__))
from clitest import BIN, CEL_RESERVED, Suite  # noqa: E402

# `.word` followed by something other than `(` (a call such as `.in(` is no field selection)
UNESCAPED = re.compile(r"\.(" + "|".join(CEL_RESERVED) + r")\b(?!\s*\()")


def rules(schema, path):
    """(path, rule or messageExpression) for every x-kubernetes-validations entry below."""
    if not isinstance(schema, dict):
        return
    for i, r in enumerate(schema.get("x-kubernetes-validations") or []):
        for key in ("rule", "messageExpression"):
            if r.get(key):
                yield f"{path}.x-kubernetes-validations[{i}].{key}", r[key]
    for name, sub in (schema.get("properties") or {}).items():
        yield from rules(sub, f"{path}.{name}")
    for key in ("items", "additionalProperties"):
        yield from rules(schema.get(key), f"{path}.{key}")


def main():
    suite = Suite()
    out = subprocess.run([BIN, "crds"], capture_output=True, text=True, timeout=30,
                         check=True).stdout
    crds = [c for c in yaml.safe_load_all(out) if c]
    suite.check("jaxset crds serves CRDs", len(crds) >= 5, [c["metadata"]["name"] for c in crds])
    # the pattern finds what it must find, and leaves escaped names and calls alone
    suite.check("pattern", UNESCAPED.search("!has(t.metadata.namespace)") and
                not UNESCAPED.search("!has(t.metadata.__namespace__) && 'a'.in('b')"))
    for crd in crds:
        for v in crd["spec"]["versions"]:
            schema = v["schema"]["openAPIV3Schema"]
            for path, rule in rules(schema, f"{crd['metadata']['name']}/{v['name']}"):
                m = UNESCAPED.search(rule)
                suite.check(f"{path}: reserved words escaped", m is None,
                            f"{rule!r}: write .__{m.group(1)}__" if m else "")
    suite.finish()


if __name__ == "__main__":
    main()
