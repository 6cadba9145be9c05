"""Shared by the SDK's Kubernetes tests (test_sdk_kube*.py): one API server for the module
(the project's test API server, or a real kube-apiserver when KUBEBUILDER_ASSETS names one,
as tests/kube/test_controller.py does), the Kubeflow CRDs of config/crd installed, a
namespace and a kubeconfig per test, and the controller's part played by the test: the JobSet
a TrainJob owns, its pods, their phases and logs, conditions and events."""
import json
import os
import random
import string
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import sdktest  # noqa: E402,F401  (puts the package on sys.path, sets JAXSET_BIN)

KUBE = os.path.join(sdktest.SRC, "tests", "kube")
sys.path.insert(0, KUBE)
import envtest  # noqa: E402
from kubetest import Server  # noqa: E402

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
TIMEOUT = float(os.environ.get("JAXSET_KUBE_TIMEOUT", "20"))
JOBSET = "jobset.sigs.k8s.io/jobset-name"
RJOB = "jobset.sigs.k8s.io/replicatedjob-name"
INDEX = "batch.kubernetes.io/job-completion-index"
TRAINJOBS = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/{ns}/trainjobs"
JAXJOBS = "/apis/kubeflow.org/v1/namespaces/{ns}/jaxjobs"
CLUSTER_RUNTIMES = "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes"
RUNTIMES = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/{ns}/trainingruntimes"


CRD_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "config", "crd")
KUBEFLOW_CRDS = ("trainer.kubeflow.org_trainjobs.yaml",
                 "trainer.kubeflow.org_trainingruntimes.yaml",
                 "trainer.kubeflow.org_clustertrainingruntimes.yaml", "kubeflow.org_jaxjobs.yaml")
JAX_RUNTIME = os.path.join(os.path.dirname(CRD_DIR), "runtimes", "jax_distributed.yaml")


def test_crds():
    """The Kubeflow CRDs jaxset's controller serves (config/crd), decoded by `jaxset decode`."""
    files = [os.path.join(CRD_DIR, f) for f in KUBEFLOW_CRDS]
    out = subprocess.run([sdktest.BIN, "decode", *files], check=True,
                         capture_output=True).stdout
    return json.loads(out)


def start_server(*args):
    """The API server with the test CRDs served."""
    assets = envtest.assets_dir()
    if assets and not args:
        return envtest.KubeAPIServer(assets, crds=test_crds())
    s = Server(*args)
    for crd in test_crds():
        r = s.post(CRDS, crd)
        assert r.status == 201, r
    for crd in test_crds():
        g, v = crd["spec"]["group"], crd["spec"]["versions"][0]["name"]
        p = crd["spec"]["names"]["plural"]
        wait(lambda: s.get(f"/apis/{g}/{v}/{p}").status == 200, f"{p} served")
    return s


def wait(cond, what, timeout=None):
    """cond()'s first true value, checked every 20 ms, or AssertionError after the deadline."""
    end = time.monotonic() + (timeout or TIMEOUT)
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() >= end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def ok(resp, *codes):
    assert resp.status in (codes or (200, 201)), resp
    return resp.json


def jax_runtime(name="jax-distributed", kind="ClusterTrainingRuntime", num_nodes=1,
                framework="jax", limits=None):
    """Kubeflow's JAX runtime as config/runtimes/jax_distributed.yaml ships it (decoded by
    `jaxset decode`), under another name, kind, numNodes, framework label or limits."""
    out = subprocess.run([sdktest.BIN, "decode", JAX_RUNTIME], check=True,
                         capture_output=True).stdout
    rt = json.loads(out)[0]
    rt["kind"], rt["metadata"]["name"] = kind, name
    rt["metadata"]["labels"] = {"trainer.kubeflow.org/framework": framework} if framework else {}
    rt["spec"]["mlPolicy"]["numNodes"] = num_nodes
    if limits:
        node = rt["spec"]["template"]["spec"]["replicatedJobs"][0]
        node["template"]["spec"]["template"]["spec"]["containers"][0]["resources"] = {
            "limits": limits}
    return rt


class KubeTest(unittest.TestCase):
    """setUpClass starts the server; each test gets a namespace (`ns`) and a kubeconfig
    (`kubeconfig`: the server's, with that namespace in its context)."""

    server = None
    server_args = ()
    counter = 0

    @classmethod
    def setUpClass(cls):
        cls.server = start_server(*cls.server_args)
        # a class cleanup, not tearDownClass: it also runs when a subclass's setUpClass fails
        # after this (a runtime the server refuses), so no server is left running
        cls.addClassCleanup(cls.server.stop)

    def setUp(self):
        KubeTest.counter += 1
        suffix = "".join(random.choice(string.ascii_lowercase) for _ in range(4))
        self.ns = f"sdk-{KubeTest.counter}-{suffix}"
        ok(self.server.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                    "metadata": {"name": self.ns}}))
        self.tmp = os.path.join(self.server.dir, self.ns)
        os.makedirs(self.tmp, exist_ok=True)
        self.kubeconfig = self.write_kubeconfig(namespace=self.ns)
        self._env = {k: os.environ.get(k) for k in
                     ("KUBECONFIG", "HOME", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT",
                      "POD_NAMESPACE")}
        os.environ["KUBECONFIG"] = os.path.join(self.tmp, "none")  # nothing found by default
        os.environ["HOME"] = self.tmp
        for k in ("KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "POD_NAMESPACE"):
            os.environ.pop(k, None)

    def tearDown(self):
        for k, v in self._env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    # -- kubeconfigs ----------------------------------------------------------------------

    def server_kubeconfig(self):
        """The server's own kubeconfig as a dict (decoded by the binary: it is YAML)."""
        from jaxset import decode
        return decode(self.server.kubeconfig)[0]

    def write_kubeconfig(self, namespace=None, name="kubeconfig", edit=None, as_json=False):
        """A kubeconfig for the server, its context's namespace set; `edit(doc)` may change
        it.  YAML (by default, through a tiny emitter of JSON flow style, which is YAML) or
        JSON."""
        doc = self.server_kubeconfig()
        for c in doc.get("contexts") or []:
            if namespace:
                c["context"]["namespace"] = namespace
            else:
                c["context"].pop("namespace", None)
        if edit:
            edit(doc)
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            if as_json:
                json.dump(doc, f)
            else:
                f.write(to_yaml(doc))
        return path

    def config(self, **kw):
        from jaxset import KubernetesBackendConfig
        kw.setdefault("config_file", self.kubeconfig)
        kw.setdefault("request_timeout", 10)
        return KubernetesBackendConfig(**kw)

    # -- the controller's part -------------------------------------------------------------

    def trainjob(self, name, ns=None):
        return ok(self.server.get(TRAINJOBS.format(ns=ns or self.ns) + f"/{name}"))

    def set_conditions(self, plural_path, name, conditions):
        obj = ok(self.server.get(f"{plural_path}/{name}"))
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        for c in conditions:
            c.setdefault("status", "True")
            c.setdefault("lastTransitionTime", now)
            c.setdefault("reason", c["type"])
            c.setdefault("message", f"{c['type']} by the test")
        obj["status"] = dict(obj.get("status") or {}, conditions=conditions)
        return ok(self.server.put(f"{plural_path}/{name}/status", obj))

    def make_pods(self, jobset, n, rjob="node", container="node", limits=None, ns=None,
                  extra_labels=None, attempt=0):
        """The pods the JobSet's Job controller would create: `<jobset>-<rjob>-0-<i>-xxxxx`,
        labelled with the JobSet's labels and the completion index."""
        ns = ns or self.ns
        names = []
        for i in range(n):
            c = {"name": container, "image": "img"}
            if limits:
                c["resources"] = {"limits": limits, "requests": limits}
            labels = {JOBSET: jobset, RJOB: rjob, INDEX: str(i),
                      "jobset.sigs.k8s.io/restart-attempt": str(attempt)}
            labels.update(extra_labels or {})
            pod = {"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"generateName": f"{jobset}-{rjob}-0-{i}-", "labels": labels,
                                "annotations": {INDEX: str(i)}},
                   "spec": {"restartPolicy": "OnFailure", "containers": [c]}}
            names.append(ok(self.server.post(f"/api/v1/namespaces/{ns}/pods",
                                             pod))["metadata"]["name"])
        return names

    def set_phase(self, pod, phase, ns=None):
        ns = ns or self.ns
        ok(self.server.patch(f"/api/v1/namespaces/{ns}/pods/{pod}/status",
                             {"status": {"phase": phase}}))

    def event(self, kind, name, reason, message, api_version="v1", ns=None):
        ns = ns or self.ns
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        KubeTest.counter += 1
        ev = {"apiVersion": "v1", "kind": "Event",
              "metadata": {"name": f"{name}.{KubeTest.counter}", "namespace": ns},
              "involvedObject": {"kind": kind, "name": name, "namespace": ns,
                                 "apiVersion": api_version},
              "reason": reason, "message": message, "type": "Normal", "count": 1,
              "firstTimestamp": now, "lastTimestamp": now,
              "source": {"component": "test"}}
        ok(self.server.post(f"/api/v1/namespaces/{ns}/events", ev))

    def reset_stats(self):
        if getattr(self.server, "has_admin", False):
            ok(self.server.admin("stats", method="DELETE"))

    def wait_listed(self, plural):
        """On the test API server: waits until `plural` was listed since reset_stats() (a
        watch of the SDK's starts with a list: it is now waiting on that watch)."""
        if getattr(self.server, "has_admin", False):
            wait(lambda: ok(self.server.get("/__admin/stats")).get(f"list {plural} 200"),
                 f"a list of {plural}")

    def need_logs(self):
        if not getattr(self.server, "has_admin", False):
            self.skipTest("pod logs need the test API server (a kube-apiserver alone has no "
                          "kubelet)")


def to_yaml(obj, indent=0):
    """Block YAML for a JSON-like value (the subset kubeconfigs use)."""
    pad = " " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}\n"
        out = ""
        for k, v in obj.items():
            if isinstance(v, (dict, list)) and v:
                out += f"{pad}{k}:\n" + to_yaml(v, indent + 2)
            else:
                out += f"{pad}{k}: {_scalar(v)}\n"
        return out
    if isinstance(obj, list):
        out = ""
        for v in obj:
            body = to_yaml(v, indent + 2) if isinstance(v, (dict, list)) and v else \
                f"{' ' * (indent + 2)}{_scalar(v)}\n"
            out += f"{pad}- " + body[indent + 2:]
        return out
    return f"{pad}{_scalar(obj)}\n"


def _scalar(v):
    if isinstance(v, (dict, list)):
        return "{}" if isinstance(v, dict) else "[]"
    return json.dumps(v)


def main():
    sdktest.main()
