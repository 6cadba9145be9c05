"""The CRDs `jaxset crds` serves carry the Kubernetes schemas of the templates they embed
(scripts/gen_crd.py), as upstream's CRDs do, so that an API server prunes and type-checks a
Job or pod template inside a JobSet, JAXJob, TrainJob or runtime:

- statically: each embedded template declares its fields with nothing kept unknown below it,
  and the structural-schema pruning and validation of the test API server (tests/kube/testapi
  schema.py, which follows k8s.io/apiextensions-apiserver) drops an unknown field inside a
  pod template and refuses a port given as a string;
- on an API server (kube-apiserver when KUBEBUILDER_ASSETS names one, the test API server
  otherwise): the same, for objects created there, and `kubectl explain` lists the Job
  template's fields and a runtime's and a JAXJob's container fields."""
import copy
import os
import re
import subprocess
import sys
import time

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "kube"))
from clitest import BIN, Suite  # noqa: E402
from testapi import schema  # noqa: E402

POD = {"containers": [{"name": "c", "image": "busybox",
                       "ports": [{"containerPort": 8080, "bogusPortField": 1}],
                       "bogusContainerField": "x"}],
       "restartPolicy": "Never"}
JOB = {"template": {"spec": POD}}


# A batch/v1 Job field newer than kube-apiserver 1.28 (Kubernetes 1.31), which the CRD keeps
# on every server as upstream's does (it is Kubernetes 1.36's JobSpec).
SUCCESS = {"rules": [{"succeededCount": 1}]}


def jobset():
    return copy.deepcopy({
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "schema"},
        "spec": {"replicatedJobs": [{"name": "w", "template": {
            "spec": dict(JOB, successPolicy=SUCCESS)}}]}})


def jaxjob():
    return copy.deepcopy({
        "apiVersion": "kubeflow.org/v1", "kind": "JAXJob", "metadata": {"name": "schema"},
        "spec": {"jaxReplicaSpecs": {"Worker": {"replicas": 1, "template": {"spec": POD}}}}})


def runtime():
    return copy.deepcopy({
        "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
        "metadata": {"name": "schema"},
        "spec": {"template": {"spec": {"replicatedJobs": [
            {"name": "node", "template": {"spec": JOB}}]}}}})


def trainjob():
    patch = {"containers": [{"name": "node", "bogusContainerField": "x",
                             "env": [{"name": "A", "value": "1"}]}]}
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": "schema"},
            "spec": {"runtimeRef": {"name": "schema", "kind": "TrainingRuntime"},
                     "runtimePatches": [{"manager": "example.com/test", "trainingRuntimeSpec": {
                         "template": {"spec": {"replicatedJobs": [
                             {"name": "node", "template": {"spec": {"template": {
                                 "spec": patch}}}}]}}}}]}}


POD_AT = ".spec.replicatedJobs[0].template.spec.template.spec"
# batch/v1 JobSpec's fields in Kubernetes 1.36, which upstream's JobSet CRD (kubernetes-sigs/jobset
# config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml, k8s.io/api v0.36) embeds.
JOB_SPEC = {"activeDeadlineSeconds", "backoffLimit", "backoffLimitPerIndex", "completionMode",
            "completions", "managedBy", "manualSelector", "maxFailedIndexes", "parallelism",
            "podFailurePolicy", "podReplacementPolicy", "selector", "successPolicy", "suspend",
            "template", "ttlSecondsAfterFinished"}
# plural -> (sample object, where its pod spec is, the schema path of the embedded template)
CASES = {
    "jobsets": (jobset, POD_AT, ".spec.replicatedJobs[].template"),
    "jaxjobs": (jaxjob, ".spec.jaxReplicaSpecs.Worker.template.spec",
                ".spec.jaxReplicaSpecs{}.template"),
    "trainingruntimes": (runtime, ".spec.template" + POD_AT,
                         ".spec.template.spec.replicatedJobs[].template"),
    "trainjobs": (trainjob, ".spec.runtimePatches[0].trainingRuntimeSpec.template" + POD_AT,
                  ".spec.runtimePatches[].trainingRuntimeSpec.template.spec.replicatedJobs[]"
                  ".template"),
}


def served():
    p = subprocess.run([BIN, "crds"], capture_output=True, text=True, timeout=60, check=True)
    return {c["spec"]["names"]["plural"]: c
            for c in yaml.load_all(p.stdout, Loader=yaml.CSafeLoader) if c}


def root(crd):
    return crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def at(s, path):
    """The sub-schema at a path like .spec.a[].b{} ([] an item, {} a map value)."""
    for part in path.strip(".").replace("[]", ".[]").replace("{}", ".{}").split("."):
        key = {"[]": "items", "{}": "additionalProperties"}.get(part)
        s = s.get(key) if key else (s.get("properties") or {}).get(part)
        if not isinstance(s, dict):
            return None
    return s


def kept_unknown(s, path, out):
    """Paths below `s` whose unknown fields an API server would keep."""
    if s.get("x-kubernetes-preserve-unknown-fields") or s.get("additionalProperties") is True:
        out.append(path)
    for k, v in (s.get("properties") or {}).items():
        kept_unknown(v, f"{path}.{k}", out)
    for k, mark in (("items", "[]"), ("additionalProperties", "{}")):
        if isinstance(s.get(k), dict):
            kept_unknown(s[k], path + mark, out)
    return out


def check_templates(suite, crds):
    for plural, (_, _, path) in CASES.items():
        t = at(root(crds[plural]), path)
        suite.check(f"{plural}: {path} has a schema", t is not None and "properties" in t, t)
        if t is None:
            continue
        keep = kept_unknown(t, path, [])
        suite.check(f"{plural}: nothing under {path} is kept unknown", not keep, keep[:10])
        port = at(t, ".spec.template.spec.containers[].ports[].containerPort") or \
            at(t, ".spec.containers[].ports[].containerPort")
        if plural != "trainjobs":   # runtimePatches patch no ports
            suite.check(f"{plural}: a container port is an integer",
                        port is not None and port.get("type") == "integer", port)
    job = at(root(crds["jobsets"]), ".spec.replicatedJobs[].template.spec")
    got = set((job or {}).get("properties") or {})
    suite.check("jobsets: the Job template declares Kubernetes 1.36's batch/v1 JobSpec, as "
                "upstream's CRD", got == JOB_SPEC, sorted(got ^ JOB_SPEC))
    pod = at(root(crds["jobsets"]), ".spec.replicatedJobs[].template.spec.template.spec") or {}
    newer = {"hostnameOverride", "resources", "schedulingGroup"}   # PodSpec since 1.28
    suite.check("jobsets: the pod template declares PodSpec fields newer than 1.28",
                newer <= set(pod.get("properties") or {}), sorted(pod.get("properties") or {}))
    c = at(pod, ".containers[]") or {}
    suite.check("jobsets: a container declares restartPolicyRules (Kubernetes 1.34)",
                "restartPolicyRules" in (c.get("properties") or {}), sorted(c))
    suite.check("jobsets: the Job template requires its pod template",
                (job or {}).get("required") == ["template"], job and job.get("required"))


def walk(obj, path):
    """The value at a field path as schema errors write it (.a[0].b, a map's key as .key)."""
    for name, index in re.findall(r"\.([^.\[]+)|\[(\d+)\]", path):
        obj = obj[name] if name else obj[int(index)]
    return obj


def bad_port(obj, pod_at):
    """`obj` with its first container's first port given as the string "abc"."""
    walk(obj, pod_at)["containers"][0]["ports"][0]["containerPort"] = "abc"
    return obj


def check_static(suite, crds):
    """The test API server's pruning and validation (tests/kube/testapi/schema.py)."""
    for plural, (make, pod_at, _) in CASES.items():
        obj = make()
        pruned = schema.prune(obj, root(crds[plural]))
        want = [f"{pod_at}.containers[0].bogusContainerField"]
        if plural != "trainjobs":
            want.insert(0, f"{pod_at}.containers[0].ports[0].bogusPortField")
        suite.check(f"{plural}: the unknown fields in the pod template are pruned",
                    sorted(pruned) == sorted(want), pruned)
        if plural == "trainjobs":
            continue
        errs = schema.validate(bad_port(make(), pod_at), root(crds[plural]), "")
        text = [f"{e.field}: {e.body()}" for e in errs]
        field = f"{pod_at}.containers[0].ports[0].containerPort".lstrip(".")
        suite.check(f"{plural}: a string port is refused naming its field",
                    any(t.startswith(field) and "integer" in t for t in text), text)


def kind_path(crd, ns="default"):
    g, v = crd["spec"]["group"], crd["spec"]["versions"][0]["name"]
    where = "" if crd["spec"]["scope"] == "Cluster" else f"namespaces/{ns}/"
    return f"/apis/{g}/{v}/{where}{crd['spec']['names']['plural']}"


def install(server, crds):
    for crd in crds.values():
        r = server.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        if r.status not in (201, 409):
            raise RuntimeError(f"installing {crd['metadata']['name']}: {r}")
    end = time.monotonic() + 60
    for crd in crds.values():
        while server.get(kind_path(crd)).status != 200:
            if time.monotonic() > end:
                raise RuntimeError(f"{crd['metadata']['name']} not served after 60s")
            time.sleep(0.1)


def check_server(suite, server, crds):
    install(server, crds)
    for plural, (make, pod_at, _) in CASES.items():
        path = kind_path(crds[plural])
        r = server.post(path, make())
        suite.check(f"{server.kind}: {plural} with unknown pod fields is created", r.status == 201,
                    r)
        if r.status != 201:
            continue
        if plural == "jobsets":
            job = walk(r.json, ".spec.replicatedJobs[0].template.spec")
            suite.check(f"{server.kind}: jobsets: a Job template's successPolicy is kept",
                        job.get("successPolicy") == SUCCESS, job)
        c = walk(r.json, pod_at)["containers"][0]
        suite.check(f"{server.kind}: {plural}: the unknown container field is pruned",
                    "bogusContainerField" not in c and c["name"] in ("c", "node"), c)
        if plural != "trainjobs":
            suite.check(f"{server.kind}: {plural}: the unknown port field is pruned",
                        c["ports"] == [{"containerPort": 8080, "protocol": "TCP"}], c["ports"])
            bad = bad_port(make(), pod_at)
            bad["metadata"]["name"] = "schema-bad"
            r = server.post(path, bad)
            field = f"{pod_at}.containers[0].ports[0].containerPort".lstrip(".")
            msg = (r.json or {}).get("message", "") if r.status != 201 else ""
            suite.check(f"{server.kind}: {plural}: a string port is refused naming its field",
                        r.status == 422 and field in msg and "integer" in msg, r)


def explain(server, path):
    p = subprocess.run(["kubectl", "--kubeconfig", server.kubeconfig, "explain", path],
                       capture_output=True, text=True, timeout=120)
    fields, on = [], False
    for line in p.stdout.splitlines():
        if line.startswith("FIELDS:"):
            on = True
        elif on and line.startswith("  ") and not line.startswith("    "):
            fields.append(line.split()[0])
    return fields, p.stderr


def check_explain(suite, server, crds):
    job = at(root(crds["jobsets"]), ".spec.replicatedJobs[].template.spec")
    end = time.monotonic() + 60
    while True:   # the published OpenAPI follows the CRD a moment later
        got, err = explain(server, "jobset.spec.replicatedJobs.template.spec")
        if got or time.monotonic() > end:
            break
        time.sleep(1)
    suite.check("kubectl explain jobset.spec.replicatedJobs.template.spec lists the Job spec",
                got and sorted(got) == sorted(job["properties"]), f"{got}\n{err}")
    suite.check("kubectl explain lists the 16 fields of Kubernetes 1.36's Job spec",
                set(got) == JOB_SPEC, sorted(set(got) ^ JOB_SPEC))
    for kind, path in (("runtime", "trainingruntime.spec.template.spec.replicatedJobs."
                                   "template.spec.template.spec.containers"),
                       ("JAXJob", "jaxjob.spec.jaxReplicaSpecs.template.spec.containers")):
        got, err = explain(server, path)   # (a map's values are explained under its name)
        suite.check(f"kubectl explain lists a {kind}'s container fields",
                    "image" in got and "ports" in got and "restartPolicyRules" in got,
                    f"{got}\n{err}")


def main():
    suite = Suite()
    crds = served()
    check_templates(suite, crds)
    check_static(suite, crds)
    from envtest import KubeAPIServer, assets_dir
    from kubetest import Server
    server = KubeAPIServer(assets_dir(), gc=False) if assets_dir() else Server()
    try:
        check_server(suite, server, crds)
        check_explain(suite, server, crds)
    finally:
        server.stop()
    suite.finish()


if __name__ == "__main__":
    main()
