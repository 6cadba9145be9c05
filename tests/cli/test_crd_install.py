"""The CRDs `jaxset crds` serves install on a real kube-apiserver as old as 1.28 and their CEL
rules can be evaluated there:

- no rule selects a CEL reserved word as a field unescaped (kube-apiserver 1.28 refuses the
  whole CRD: `t.metadata.namespace` is "undefined field 'namespace'"; `__namespace__` compiles
  on every version, apiextensions' documented escape);
- no object schema under a rule declares neither properties, additionalProperties nor
  x-kubernetes-preserve-unknown-fields (kube-apiserver 1.28 then refuses every object that
  sets it: "invalid object type, expected either Properties or AdditionalProperties");
- with KUBEBUILDER_ASSETS naming kube-apiserver and etcd (tests/kube/envtest.py): every CRD
  and config/runtimes' ClusterTrainingRuntime are created there, and a runtime with two ML
  policies is refused with upstream's message."""
import copy
import os
import re
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "kube"))
from clitest import BIN, SRC, Suite  # noqa: E402

RESERVED = re.compile(r"\.(as|break|const|continue|else|for|function|if|import|let|loop|"
                      r"package|namespace|return|var|void|while)\b")


def served():
    p = subprocess.run([BIN, "crds"], capture_output=True, text=True, timeout=30, check=True)
    return [c for c in yaml.safe_load_all(p.stdout) if c]


def walk(schema, path, under_rule, out):
    """(path, problem) of every schema below `schema`."""
    rules = schema.get("x-kubernetes-validations", [])
    for r in rules:
        m = RESERVED.search(r["rule"])
        if m:
            out.append((path, f"rule selects the reserved word {m.group(1)!r} unescaped: "
                              f"{r['rule']}"))
    under_rule = under_rule or bool(rules)
    if (under_rule and path != ".metadata" and schema.get("type") == "object" and  # ObjectMeta
            "properties" not in schema and
            "additionalProperties" not in schema and
            not schema.get("x-kubernetes-preserve-unknown-fields")):
        out.append((path, "an object with no schema of its fields under a CEL rule"))
    for k, v in schema.get("properties", {}).items():
        walk(v, f"{path}.{k}", under_rule, out)
    if isinstance(schema.get("items"), dict):
        walk(schema["items"], f"{path}[]", under_rule, out)
    if isinstance(schema.get("additionalProperties"), dict):
        walk(schema["additionalProperties"], f"{path}{{}}", under_rule, out)


def check_static(suite, crds):
    for crd in crds:
        for v in crd["spec"]["versions"]:
            problems = []
            walk(v["schema"]["openAPIV3Schema"], "", False, problems)
            suite.check(f"{crd['metadata']['name']} {v['name']}: rules evaluate on 1.28",
                        not problems, "\n".join(f"{p}: {m}" for p, m in problems))


def kubectl(server, *args, stdin=None):
    return subprocess.run(["kubectl", "--kubeconfig", server.kubeconfig, *args], input=stdin,
                          capture_output=True, text=True, timeout=60)


def check_real(suite, crds):
    from envtest import KubeAPIServer, assets_dir
    if not assets_dir():
        print("skipped: installing on kube-apiserver (KUBEBUILDER_ASSETS names none)")
        return
    server = KubeAPIServer(assets_dir(), gc=False)
    try:
        p = kubectl(server, "create", "-f", "-", stdin=yaml.safe_dump_all(crds))
        suite.check("every CRD is created on kube-apiserver", p.returncode == 0, p.stderr)
        for crd in crds:
            kubectl(server, "wait", "--for=condition=Established", "--timeout=30s",
                    f"crd/{crd['metadata']['name']}")
        rt = os.path.join(SRC, "config", "runtimes", "jax_distributed.yaml")
        p = kubectl(server, "create", "-f", rt)
        suite.check("config/runtimes is created on kube-apiserver", p.returncode == 0, p.stderr)
        with open(rt, encoding="utf-8") as f:
            two = copy.deepcopy(yaml.safe_load(f))
        two["metadata"]["name"] = "two-policies"
        two["spec"]["mlPolicy"]["torch"] = {}
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
            yaml.safe_dump(two, f)
            f.flush()
            p = kubectl(server, "create", "-f", f.name)
        suite.check("a runtime with two ML policies is refused with upstream's message",
                    p.returncode != 0 and "Only one of the policy can be configured" in p.stderr,
                    p.stdout + p.stderr)
    finally:
        server.stop()


def main():
    suite = Suite()
    crds = served()
    check_static(suite, crds)
    check_real(suite, crds)
    suite.finish()


if __name__ == "__main__":
    main()
