"""The user's CLI against a cluster: `jaxset submit/get/describe/logs/wait/delete`, `kubectl
jaxset` and `jaxset completion`, run as a user runs them (the binary, a kubeconfig) against the
test API server, or a real kube-apiserver when KUBEBUILDER_ASSETS names one (tests/kube/
envtest.py; pod logs need a kubelet there: those tests are skipped).

The real `jaxset controller` runs the JobSets; the test plays the Job controller and the
kubelet (Job status, pods, pod logs through /__admin/podlogs) and, for JAXJobs and TrainJobs,
their controllers (status). Outputs are compared with golden files in tests/golden/kube-cli/
after normalising what changes from run to run (ages, times, uids, the namespace);
UPDATE_GOLDEN=1 rewrites them. `python3 test_cli.py NAME...` runs some tests."""
import difflib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctltest import (BIN, CRDS, L_ATTEMPT, L_JOBSET, Case, Controller, crd,  # noqa: E402
                     now_rfc3339, poll)
from kubetest import SRC, Server, Skip, check, expect, main, test  # noqa: E402

GOLDEN = os.path.join(SRC, "tests", "golden", "kube-cli")
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
SANITIZER = ("AddressSanitizer", "LeakSanitizer", "runtime error:")


# ---------------------------------------------------------------------- the environment

def simple_crd(group, version, kind, plural, scope="Namespaced"):
    """A CRD that keeps any field, with a status subresource: what the tests need of the
    Kubeflow kinds (their controllers are not installed)."""
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{plural}.{group}"},
            "spec": {"group": group, "scope": scope,
                     "names": {"kind": kind, "plural": plural, "singular": kind.lower(),
                               "listKind": kind + "List"},
                     "versions": [{"name": version, "served": True, "storage": True,
                                   "subresources": {"status": {}},
                                   "schema": {"openAPIV3Schema": {
                                       "type": "object",
                                       "x-kubernetes-preserve-unknown-fields": True}}}]}}


EXTRA_CRDS = [
    simple_crd("kubeflow.org", "v1", "JAXJob", "jaxjobs"),
    simple_crd("trainer.kubeflow.org", "v1alpha1", "TrainJob", "trainjobs"),
    simple_crd("trainer.kubeflow.org", "v1alpha1", "TrainingRuntime", "trainingruntimes"),
    simple_crd("trainer.kubeflow.org", "v1alpha1", "ClusterTrainingRuntime",
               "clustertrainingruntimes", "Cluster"),
]


def install(server, c):
    r = server.post(CRDS, c)
    check(r.status in (201, 409), f"CRD {c['metadata']['name']}: {r}")
    g, v = c["spec"]["group"], c["spec"]["versions"][0]["name"]
    path = f"/apis/{g}/{v}/{c['spec']['names']['plural']}"
    poll(lambda: server.get(path).status == 200, f"{path} served")


class Env:
    def __init__(self):
        import envtest
        assets = envtest.assets_dir()
        self.server = (envtest.KubeAPIServer(assets, crds=[crd(), *EXTRA_CRDS]) if assets
                       else Server())
        self.real = bool(assets)
        if not assets:
            for c in [crd(), *EXTRA_CRDS]:
                install(self.server, c)
        print(envtest.describe(self.server), flush=True)
        # The JobSet controller only: the test writes the Kubeflow kinds' status itself.
        self.controller = Controller(self.server, "--controllers=jobset", tag="cli-ctl")
        self.dir = tempfile.mkdtemp(prefix="jaxset-cli-")
        self.home = os.path.join(self.dir, "home")  # no ~/.kube/config of the user's
        os.makedirs(self.home)
        self.cases = []

    def env(self, kubeconfig=True, **extra):
        e = {k: v for k, v in os.environ.items()
             if k not in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT")}
        e["HOME"] = self.home
        e["JAXSET_HOME"] = os.path.join(self.dir, "state")
        e["NO_COLOR"] = "1"
        if kubeconfig:
            e["KUBECONFIG"] = self.server.kubeconfig
        e.update(extra)
        return e

    def write(self, name, docs):
        """Manifest file `name` holding `docs` (JSON, one document per line: a YAML
        stream)."""
        path = os.path.join(self.dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n---\n".join(json.dumps(d) for d in docs) + "\n")
        return path


def jaxset(env, *args, timeout=60, kubeconfig=True, extra_env=None, prog=BIN):
    """Runs the binary; (status, stdout, stderr), sanitizer reports refused."""
    p = subprocess.run([prog, *args], capture_output=True, text=True, timeout=timeout,
                       env=env.env(kubeconfig, **(extra_env or {})), stdin=subprocess.DEVNULL)
    for bad in SANITIZER:
        check(bad not in p.stderr, f"{args}: {bad}:\n{p.stderr[-4000:]}")
    return p.returncode, p.stdout, p.stderr


class Bg:
    """A jaxset process in the background, its output in files (read while it runs)."""

    def __init__(self, env, *args):
        self.out_path = os.path.join(env.dir, f"bg-{time.monotonic_ns()}.out")
        self.err_path = self.out_path[:-4] + ".err"
        self.out = open(self.out_path, "w", encoding="utf-8")
        self.err = open(self.err_path, "w", encoding="utf-8")
        self.proc = subprocess.Popen([BIN, *args], stdout=self.out, stderr=self.err,
                                     stdin=subprocess.DEVNULL, env=env.env())

    def text(self):
        with open(self.out_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def errors(self):
        with open(self.err_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def wait_output(self, pred, what):
        return poll(lambda: pred(self.text()) or (False, self.text()[-2000:]), what)

    def finish(self, timeout=30):
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            raise AssertionError(f"still running after {timeout}s: {self.proc.args}\n"
                                 f"{self.text()[-2000:]}\n{self.errors()[-2000:]}")
        self.out.close()
        self.err.close()
        for bad in SANITIZER:
            check(bad not in self.errors(), f"{bad}:\n{self.errors()[-4000:]}")
        return rc

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        return self.finish(10)


# ---------------------------------------------------------------------- golden files

AGE = re.compile(r"(?<![\w/.:-])(\d+[smhdy](\d+[smhd])?|<invalid>)(?![\w/.:-])")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")


def normalise(text, ns):
    text = TIME.sub("<time>", text)
    text = text.replace(ns, "<ns>")
    text = AGE.sub("<age>", text)
    # columns realign around ages of other widths: compare words, not spaces
    return "\n".join(re.sub(r" {2,}", "  ", line).rstrip() for line in text.splitlines()) + "\n"


def golden(name, text, ns):
    got = normalise(text, ns)
    path = os.path.join(GOLDEN, name)
    if UPDATE:
        os.makedirs(GOLDEN, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(got)
        return
    if not os.path.exists(path):
        raise AssertionError(f"no golden file {path} (UPDATE_GOLDEN=1 writes it):\n{got}")
    with open(path, encoding="utf-8") as f:
        want = f.read()
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                            "golden/" + name, "output"))
        raise AssertionError(f"{name} differs from its golden file:\n{diff}")


# ---------------------------------------------------------------------- objects

def container(name="c"):
    return {"name": name, "image": "busybox:1.36", "command": ["sleep", "1"]}


def jobset(name, replicas=1, pods=2, max_restarts=2):
    spec = {"parallelism": pods, "completions": pods, "backoffLimit": 0,
            "completionMode": "Indexed",
            "template": {"spec": {"restartPolicy": "Never", "containers": [container()]}}}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name, "annotations": {"jaxset.dev/jax-runtime": "jobset"}},
            "spec": {"failurePolicy": {"maxRestarts": max_restarts},
                     "replicatedJobs": [{"name": "workers", "replicas": replicas,
                                         "template": {"spec": spec}}]}}


def jaxjob(name):
    return {"apiVersion": "kubeflow.org/v1", "kind": "JAXJob", "metadata": {"name": name},
            "spec": {"runPolicy": {"backoffLimit": 0},
                     "jaxReplicaSpecs": {"Worker": {
                         "replicas": 2, "restartPolicy": "Never",
                         "template": {"spec": {"containers": [container("jax")]}}}}}}


def trainjob(name, runtime):
    rt = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
          "metadata": {"name": runtime},
          "spec": {"mlPolicy": {"numNodes": 1, "jax": {}},
                   "template": {"spec": {"replicatedJobs": [{
                       "name": "node", "template": {"spec": {"template": {"spec": {
                           "containers": [{"name": "node", "image": "jax:1"}]}}}}}]}}}}
    tj = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
          "metadata": {"name": name},
          "spec": {"runtimeRef": {"name": runtime},
                   "trainer": {"numNodes": 2, "command": ["python3", "-u", "train.py"]}}}
    return [rt, tj]


def aichor(name):
    return {"kind": "AIchorManifest", "apiVersion": "0.2.3", "name": name,
            "spec": {"operator": "jax", "image": "jax-demo", "command": "python3 train.py",
                     "types": {"worker": {"count": 2, "resources": {"cpus": 1,
                                                                    "ramRatio": 2}}}}}


def new_case(env, name="x"):
    """A namespace of its own (Case from ctltest, with no JobSet created)."""
    c = Case(env, {"metadata": {"name": name}}, create=False)
    return c


# ---------------------------------------------------------------------- kubelet and friends

def make_pods(c, js_name, attempt=0):
    """The pods of every live Job of JobSet `js_name`, as the Job controller makes them for an
    Indexed Job (template labels, completion index, hostname, subdomain) and a kubelet runs
    them (Running)."""
    out = []
    for j in c.jobs(live_only=True):
        if j["metadata"]["labels"].get(L_ATTEMPT) != str(attempt):
            continue
        tmpl = j["spec"]["template"]
        for i in range(j["spec"].get("completions", 1)):
            labels = dict(tmpl["metadata"].get("labels") or {})
            labels.update({"batch.kubernetes.io/job-completion-index": str(i),
                           "job-name": j["metadata"]["name"],
                           "controller-uid": j["metadata"]["uid"]})
            ann = dict(tmpl["metadata"].get("annotations") or {})
            ann["batch.kubernetes.io/job-completion-index"] = str(i)
            name = f"{j['metadata']['name']}-{i}-a{attempt}"
            pod = {"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": name, "labels": labels, "annotations": ann,
                                "ownerReferences": [{
                                    "apiVersion": "batch/v1", "kind": "Job",
                                    "name": j["metadata"]["name"], "uid": j["metadata"]["uid"],
                                    "controller": True, "blockOwnerDeletion": True}]},
                   "spec": {**tmpl["spec"], "hostname": f"{j['metadata']['name']}-{i}",
                            "subdomain": js_name, "nodeName": "node-1"}}
            p = expect(c.s.post(c.path("pods", api="/api/v1"), pod), 201, "pod")
            p.setdefault("status", {})["phase"] = "Running"
            p["status"]["containerStatuses"] = [{"name": "c", "ready": True, "restartCount": 0,
                                                 "image": "busybox:1.36", "imageID": "",
                                                 "state": {"running": {"startedAt":
                                                                       now_rfc3339()}}}]
            expect(c.s.put(c.path("pods", name, "status", api="/api/v1"), p), 200,
                   "pod status")
            out.append(p)
    return out


def log_lines(env, c, pod, text, close=False):
    env.server.pod_log(c.ns, pod, text, close=close)


def need_logs(env):
    if env.real:
        raise Skip("pod logs need a kubelet: a kube-apiserver without one serves none")


def set_status(env, c, api, plural, name, status):
    """A controller's status write on a custom resource (JAXJob, TrainJob)."""
    path = f"{api}/namespaces/{c.ns}/{plural}/{name}"
    obj = expect(env.server.get(path), 200, f"get {plural}/{name}")
    obj["status"] = status
    expect(env.server.put(path + "/status", obj), 200, f"status of {plural}/{name}")


def cond(ctype, status="True", reason="Test", message=""):
    return {"type": ctype, "status": status, "reason": reason, "message": message,
            "lastTransitionTime": now_rfc3339()}


def submit(env, c, *docs, name="job.json", args=()):
    rc, out, err = jaxset(env, "submit", "-n", c.ns, env.write(f"{c.ns}-{name}", docs), *args)
    check(rc == 0, f"submit: {rc} {out} {err}")
    return out


def same_object(env, path, text, parse=json.loads):
    """The printed object is the server's (read again: exact unless it changed meanwhile)."""
    got = parse(text)
    now = expect(env.server.get(path), 200, path)
    if got["metadata"]["resourceVersion"] == now["metadata"]["resourceVersion"]:
        check(got == now, f"printed object differs from the server's:\n{got}\n{now}")
    else:
        check(got["metadata"]["uid"] == now["metadata"]["uid"], "another object")


def decode_yaml(env, text):
    path = os.path.join(env.dir, f"yaml-{time.monotonic_ns()}.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    out = subprocess.run([BIN, "decode", path], check=True, capture_output=True).stdout
    return json.loads(out)[0]


def timed(env, *args, **kw):
    t0 = time.monotonic()
    rc, out, err = jaxset(env, *args, **kw)
    return rc, out, err, time.monotonic() - t0


# ====================================================================== a JobSet, every verb


def same_shapes_here_and_there(env, name, flags, **kw):
    """The command lines a cluster and the runs of this machine both take, and the shapes both
    print (tests/local/test_cli.py has the local side of each in detail)."""
    def get(*args):
        rc, out, err = jaxset(env, "get", *args, *flags, **kw)
        check(rc == 0, f"get {args}: {rc} {err}")
        return out
    one = json.loads(get(f"jobset/{name}", "-o", "json"))
    check(one["kind"] == "JobSet" and one["metadata"]["name"] == name, one)
    two = json.loads(get(name, f"jobset/{name}", "-o", "json"))
    check(two["kind"] == "List" and [i["kind"] for i in two["items"]] == ["JobSet"] * 2, two)
    check(get(name, "-o", "name") == f"jobset.jobset.x-k8s.io/{name}\n", name)
    check(get(name, "-o", "jsonpath={.kind}/{.metadata.name}") == f"JobSet/{name}", name)
    check(get("-o", "jsonpath={.items[*].kind}").split() == ["JobSet"] *
          len(json.loads(get("-o", "json"))["items"]), name)
    pods = json.loads(get("pods", "-l", f"jobset.sigs.k8s.io/jobset-name={name}", "-o", "json"))
    check(pods["kind"] == "List" and pods["items"] and
          all(p["kind"] == "Pod" for p in pods["items"]), pods)
    rc, out, err = jaxset(env, "get", name, "nope-not-there", "-o", "name", *flags, **kw)
    check(rc == 2 and out == f"jobset.jobset.x-k8s.io/{name}\n" and "nope-not-there" in err,
          f"{rc} {out} {err}")


@test
def jobset_every_verb(env):
    c = new_case(env, "train")
    out = submit(env, c, jobset("train"))
    golden("submit-jobset.txt", out, c.ns)
    jobs = c.wait_jobs(1)
    pods = make_pods(c, "train")
    c.ready(jobs[0])
    c.wait_rj_status({"workers": {"ready": 1, "active": 1}})
    for args, name in ((("get",), "get-jobset.txt"), (("get", "-o", "wide"), "get-jobset-wide.txt"),
                       (("get", "train"), "get-jobset.txt"),
                       (("get", "jobset/train"), "get-jobset.txt"),
                       (("get", "jobsets", "--all"), "get-jobset.txt")):
        rc, out, err = jaxset(env, *args, "-n", c.ns)
        check(rc == 0 and err == "", f"{args}: {rc} {err}")
        golden(name, out, c.ns)
    rc, out, _ = jaxset(env, "get", "train", "-n", c.ns, "-o", "name")
    check(rc == 0 and out == "jobset.jobset.x-k8s.io/train\n", out)
    path = c.js_path()
    rc, out, _ = jaxset(env, "get", "train", "-n", c.ns, "-o", "json")
    check(rc == 0, out)
    same_object(env, path, out)
    rc, out, _ = jaxset(env, "get", "train", "-n", c.ns, "-o", "yaml")
    check(rc == 0, out)
    same_object(env, path, out, lambda t: decode_yaml(env, t))
    rc, out, _ = jaxset(env, "get", "-n", c.ns, "-o", "json")
    lst = json.loads(out)
    check(lst["kind"] == "List" and [i["kind"] for i in lst["items"]] == ["JobSet"], out)
    same_shapes_here_and_there(env, "train", ("-n", c.ns))
    # a kubelet's event through events.k8s.io/v1: describe shows it once (both APIs list it)
    ev = {"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "pulled"},
          "eventTime": time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime()),
          "reportingController": "kubelet", "reportingInstance": "node-1", "action": "Pull",
          "reason": "Pulled", "type": "Normal", "note": "image busybox:1.36 pulled",
          "regarding": {"kind": "Pod", "name": pods[0]["metadata"]["name"], "namespace": c.ns,
                        "apiVersion": "v1"}}
    expect(env.server.post(f"/apis/events.k8s.io/v1/namespaces/{c.ns}/events", ev), 201, "ev")
    rc, out, err = jaxset(env, "describe", "train", "-n", c.ns)
    check(rc == 0 and err == "", err)
    golden("describe-jobset.txt", out, c.ns)
    if not env.real:
        for i, p in enumerate(pods):
            log_lines(env, c, p["metadata"]["name"], f"process {i} says hello\nstep 1 of {i}\n")
        rc, out, err = jaxset(env, "logs", "train", "-n", c.ns)
        check(rc == 0 and err == "", err)
        golden("logs-jobset.txt", out, c.ns)
        rc, out, _ = jaxset(env, "logs", "train", "-n", c.ns, "--process-id", "1")
        check(out == "process 1 says hello\nstep 1 of 1\n", out)
        rc, out, _ = jaxset(env, "logs", "train", "-n", c.ns, "--tail", "1", "--prefix",
                            "--pod", "train-workers-0-0")
        check(out == "[train-workers-0-0] step 1 of 0\n", out)
        rc, out, _ = jaxset(env, "logs", "train", "-n", c.ns, "--replicated-job", "nope")
        check(rc == 2, out)
    rc, out, err, took = timed(env, "wait", "train", "-n", c.ns, "--timeout", "1s")
    check(rc == 124 and "timed out" in err and took < 10, f"{rc} {err} {took}")
    golden("wait-jobset-timeout.txt", err, c.ns)
    c.complete(jobs[0])
    rc, out, err = jaxset(env, "wait", "train", "-n", c.ns, "--for=Completed", "--timeout", "30s")
    check(rc == 0 and out == "jobset.jobset.x-k8s.io/train condition met\n", f"{rc} {out} {err}")
    rc, out, err = jaxset(env, "wait", "jobset/train", "-n", c.ns, "--for=Failed")
    check(rc == 1 and "is Completed, it will never be Failed" in err, f"{rc} {out} {err}")
    rc, out, err = jaxset(env, "wait", "train", "-n", c.ns, "--for=condition=Completed")
    check(rc == 0, f"{rc} {out} {err}")
    rc, out, err = jaxset(env, "get", "-n", c.ns)
    golden("get-jobset-completed.txt", out, c.ns)
    rc, out, err = jaxset(env, "delete", "train", "-n", c.ns, "--cascade=foreground")
    check(rc == 0 and out == 'jobset.jobset.x-k8s.io "train" deleted\n', f"{rc} {out} {err}")
    if env.server.has_gc:
        c.release(jobs)                              # the kubelet lets the pods go
    else:                                            # no garbage collector: nothing cascades
        env.server.patch(path, {"metadata": {"finalizers": None}})
    poll(lambda: env.server.get(path).status == 404, "the JobSet gone")
    rc, out, err = jaxset(env, "get", "train", "-n", c.ns)
    check(rc == 2 and err == 'jaxset get: jobsets.jobset.x-k8s.io "train" not found\n', err)
    rc, out, err = jaxset(env, "get", "-n", c.ns)
    check(rc == 0 and out == "" and err == f"No resources found in {c.ns} namespace.\n", err)


# ====================================================================== JAXJob


def jaxjob_pods(env, c, name):
    out = []
    for i in range(2):
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": f"{name}-worker-{i}",
            "labels": {"training.kubeflow.org/job-name": name,
                       "training.kubeflow.org/replica-type": "worker",
                       "training.kubeflow.org/replica-index": str(i)}},
            "spec": {"hostname": f"{name}-worker-{i}", "containers": [
                {**container("jax"), "env": [{"name": "JAX_PROCESS_ID", "value": str(i)}]}]}}
        out.append(expect(c.s.post(c.path("pods", api="/api/v1"), pod), 201, "pod"))
    return out


@test
def jaxjob_every_verb(env):
    c = new_case(env, "jj")
    golden("submit-jaxjob.txt", submit(env, c, jaxjob("jj")), c.ns)
    api = "/apis/kubeflow.org/v1"
    set_status(env, c, api, "jaxjobs", "jj", {
        "conditions": [cond("Created", reason="JAXJobCreated"),
                       cond("Running", reason="JAXJobRunning")],
        "replicaStatuses": {"Worker": {"active": 2}}})
    rc, out, err = jaxset(env, "get", "jaxjob/jj", "-n", c.ns)
    check(rc == 0, err)
    golden("get-jaxjob.txt", out, c.ns)
    rc, out, _ = jaxset(env, "get", "jaxjob/jj", "-n", c.ns, "-o", "name")
    check(out == "jaxjob.kubeflow.org/jj\n", out)
    rc, out, _ = jaxset(env, "get", "jaxjob/jj", "-n", c.ns, "-o", "json")
    same_object(env, f"{api}/namespaces/{c.ns}/jaxjobs/jj", out)
    pods = jaxjob_pods(env, c, "jj")
    rc, out, err = jaxset(env, "describe", "jaxjob/jj", "-n", c.ns)
    check(rc == 0, err)
    golden("describe-jaxjob.txt", out, c.ns)
    if not env.real:
        for i, p in enumerate(pods):
            log_lines(env, c, p["metadata"]["name"], f"jax process {i}\n")
        rc, out, err = jaxset(env, "logs", "jaxjob/jj", "-n", c.ns)
        golden("logs-jaxjob.txt", out, c.ns)
        rc, out, _ = jaxset(env, "logs", "jaxjob/jj", "-n", c.ns, "--process-id", "1")
        check(out == "jax process 1\n", out)
    set_status(env, c, api, "jaxjobs", "jj", {
        "conditions": [cond("Created"), cond("Running", "False"), cond("Succeeded")],
        "replicaStatuses": {"Worker": {"succeeded": 2}}})
    rc, out, err = jaxset(env, "wait", "jaxjob/jj", "-n", c.ns, "--timeout", "20s")
    check(rc == 0 and out == "jaxjob.kubeflow.org/jj condition met\n", f"{rc} {out} {err}")
    rc, out, _ = jaxset(env, "get", "jaxjob/jj", "-n", c.ns)
    golden("get-jaxjob-completed.txt", out, c.ns)
    rc, out, err = jaxset(env, "delete", "jaxjob/jj", "-n", c.ns)
    check(rc == 0 and out == 'jaxjob.kubeflow.org "jj" deleted\n', f"{rc} {out} {err}")


# ====================================================================== TrainJob


@test
def trainjob_every_verb(env):
    c = new_case(env, "tj")
    runtime = f"rt-{c.ns}"
    out = submit(env, c, *trainjob("tj", runtime))
    check(out == f"clustertrainingruntime.trainer.kubeflow.org/{runtime} created\n"
                 "trainjob.trainer.kubeflow.org/tj created\n", out)
    check(env.server.get(f"/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/"
                         f"{runtime}").status == 200, "runtime created")
    api = "/apis/trainer.kubeflow.org/v1alpha1"
    set_status(env, c, api, "trainjobs", "tj", {
        "jobsStatus": [{"name": "node", "ready": 1, "active": 1, "succeeded": 0, "failed": 0,
                        "suspended": 0}]})
    rc, out, err = jaxset(env, "get", "trainjob/tj", "-n", c.ns)
    check(rc == 0, err)
    golden("get-trainjob.txt", out, c.ns)
    rc, out, _ = jaxset(env, "get", "trainjobs", "--all", "-n", c.ns, "-o", "wide")
    golden("get-trainjob-wide.txt", out, c.ns)
    rc, out, err = jaxset(env, "describe", "trainjob/tj", "-n", c.ns)
    check(rc == 0, err)
    golden("describe-trainjob.txt", out, c.ns)
    set_status(env, c, api, "trainjobs", "tj", {
        "conditions": [cond("Failed", reason="JobsFailed", message="node failed")],
        "jobsStatus": [{"name": "node", "ready": 0, "active": 0, "succeeded": 0, "failed": 1,
                        "suspended": 0}]})
    rc, out, err = jaxset(env, "wait", "trainjob/tj", "-n", c.ns)
    check(rc == 1 and "is Failed, it will never be Completed" in err, f"{rc} {out} {err}")
    golden("wait-trainjob-failed.txt", err, c.ns)
    rc, out, _ = jaxset(env, "wait", "trainjob/tj", "-n", c.ns, "--for", "failed")
    check(rc == 0, out)
    rc, out, err = jaxset(env, "delete", "trainjob/tj", "-n", c.ns)
    check(rc == 0 and out == 'trainjob.trainer.kubeflow.org "tj" deleted\n', f"{rc} {err}")
    env.server.delete(f"{api}/clustertrainingruntimes/{runtime}")


@test
def submit_trainjob_with_the_clusters_runtime(env):
    """A TrainJob whose runtime is on the cluster only is validated with it, and only the
    TrainJob is sent."""
    c = new_case(env, "tjr")
    runtime = f"rt-{c.ns}"
    rt, tj = trainjob("tjr", runtime)
    expect(env.server.post("/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes", rt),
           201, "runtime")
    try:
        out = submit(env, c, tj, name="tj-only.json")
        check(out == "trainjob.trainer.kubeflow.org/tjr created\n", out)
        bad = dict(tj, metadata={"name": "tjr2"})
        bad["spec"] = dict(tj["spec"], trainer={"numNodes": -1})
        rc, _, err = jaxset(env, "submit", "-n", c.ns, env.write(f"{c.ns}-bad.json", [bad]))
        check(rc == 2 and "numNodes" in err, f"{rc} {err}")
    finally:
        env.server.delete(f"/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/"
                          f"{runtime}")


@test
def programs_read_objects_and_refusals(env):
    """What the Python SDK reads: any kind around a job as JSON (one name, or a List under a
    label selector), the configuration in effect, and a refusal's Status with --errors=json."""
    c = new_case(env, "pr")
    for i, lab in enumerate(("a", "a", "b")):
        expect(c.s.post(c.path("pods", api="/api/v1"), {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p{i}", "labels": {"team": lab}},
            "spec": {"containers": [container("c")]}}), 201, "pod")
    rc, out, err = jaxset(env, "get", "pods", "--all", "-l", "team=a", "-n", c.ns, "-o", "json")
    check(rc == 0, err)
    lst = json.loads(out)
    check(lst["kind"] == "List" and [p["metadata"]["name"] for p in lst["items"]] ==
          ["p0", "p1"], out)
    rc, out, err = jaxset(env, "get", "pod/p2", "-n", c.ns, "-o", "json")
    check(rc == 0 and json.loads(out)["metadata"]["labels"] == {"team": "b"}, err)
    rc, _, err = jaxset(env, "get", "pods", "--all", "-n", c.ns)
    check(rc == 2 and "unknown kind" in err, err)  # no table of pods: -o json, yaml or name
    rc, out, err = jaxset(env, "get", "jaxjob/nope", "-n", c.ns, "--errors=json")
    status = json.loads(err.splitlines()[-1])
    check(rc == 2 and status["kind"] == "Status" and status["code"] == 404 and
          status["reason"] == "NotFound" and 'jaxjobs.kubeflow.org "nope"' in err, err)
    rc, out, err = jaxset(env, "get", "jaxjob/nope", "-n", c.ns)
    check(rc == 2 and "{" not in err, err)  # people read one line
    rc, out, err = jaxset(env, "config", "view", "--minify", "-o", "json", "-n", c.ns)
    cfg = json.loads(out)
    check(rc == 0 and cfg["contexts"][0]["context"]["namespace"] == c.ns and
          cfg["clusters"][0]["cluster"]["server"].startswith("http") and cfg["users"] == [],
          f"{out} {err}")
    rc, out, err = jaxset(env, "config", "view", "--kubeconfig", "/nonexistent/kc")
    check(rc == 3 and "/nonexistent/kc" in err, err)


@test
def follow_one_pod_ends_with_its_log(env):
    """`logs -f --pod P` of a JAXJob ends when pod P's log ends, the job still running (as
    `kubectl logs -f pod/P`); a JAXJob's pods with the JobSet's labels are found too."""
    need_logs(env)
    c = new_case(env, "fp")
    submit(env, c, jaxjob("fp"))
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "fp-worker-0-0-x", "labels": {
               "jobset.sigs.k8s.io/jobset-name": "fp",
               "jobset.sigs.k8s.io/replicatedjob-name": "worker"}},
           "spec": {"containers": [container("jax")]}}
    expect(c.s.post(c.path("pods", api="/api/v1"), pod), 201, "pod")
    log_lines(env, c, "fp-worker-0-0-x", "one\ntwo\n", close=True)
    rc, out, err = jaxset(env, "logs", "jaxjob/fp", "-f", "--pod", "fp-worker-0-0-x", "-n", c.ns,
                          timeout=20)
    check(rc == 0 and out == "one\ntwo\n", f"{rc} {out!r} {err}")


# ====================================================================== AIchor


@test
def aichor_becomes_a_jobset(env):
    c = new_case(env, "ai")
    out = submit(env, c, aichor("ai"))
    golden("submit-aichor.txt", out, c.ns)
    js = c.js("ai")
    check(js and js["metadata"]["annotations"].get("jaxset.dev/jax-runtime") == "aichor", js)
    c.name = "ai"
    c.wait_jobs(1)
    rc, out, _ = jaxset(env, "get", "ai", "-n", c.ns)
    golden("get-aichor.txt", out, c.ns)
    rc, out, err = jaxset(env, "describe", "ai", "-n", c.ns)
    golden("describe-aichor.txt", out, c.ns)


# ====================================================================== a gang restart


@test
def watch_and_follow_across_a_gang_restart(env):
    """`get -w` prints a line per change and `logs -f` follows the pods of the restarted gang
    too, ending once the JobSet is Completed."""
    c = new_case(env, "gang")
    submit(env, c, jobset("gang", max_restarts=1))
    c.name = "gang"
    jobs = c.wait_jobs(1, attempt_=0)
    pods0 = make_pods(c, "gang", 0)
    c.ready(jobs[0])
    c.wait_rj_status({"workers": {"ready": 1, "active": 1}})
    w = Bg(env, "get", "gang", "-w", "-n", c.ns)
    f = None if env.real else Bg(env, "logs", "gang", "-f", "-n", c.ns)
    try:
        w.wait_output(lambda t: t.startswith("NAME") and "gang" in t, "the first table")
        if f:
            for i, p in enumerate(pods0):
                log_lines(env, c, p["metadata"]["name"], f"attempt 0 process {i}\n")
            f.wait_output(lambda t: t.count("attempt 0") == 2, "attempt 0's lines")
        c.fail(jobs[0])                                   # the gang restarts
        c.wait_status(lambda st: st.get("restarts") == 1, "restarts 1")
        if f:
            for p in pods0:
                log_lines(env, c, p["metadata"]["name"], "", close=True)
        c.release(jobs)
        jobs1 = c.wait_jobs(1, attempt_=1)
        pods1 = make_pods(c, "gang", 1)
        c.ready(jobs1[0])
        if f:
            for i, p in enumerate(pods1):
                log_lines(env, c, p["metadata"]["name"], f"attempt 1 process {i}\n",
                          close=True)
            f.wait_output(lambda t: t.count("attempt 1") == 2, "attempt 1's lines")
        c.complete(jobs1[0])
        w.wait_output(lambda t: re.search(r"^gang +Completed +1 ", t, re.M), "Completed, 1 restart")
        if f:
            for p in pods1:
                pp = c.path("pods", p["metadata"]["name"], api="/api/v1")
                cur = expect(env.server.get(pp), 200, "pod")
                cur["status"]["phase"] = "Succeeded"
                env.server.put(pp + "/status", cur)
            rc = f.finish(30)
            check(rc == 0, f"logs -f: {rc} {f.errors()}")
            lines = f.text().splitlines()
            check(sorted(lines) == sorted([
                "[gang-workers-0-0] attempt 0 process 0", "[gang-workers-0-1] attempt 0 process 1",
                "[gang-workers-0-0] attempt 1 process 0",
                "[gang-workers-0-1] attempt 1 process 1"]), lines)
            check(lines.index("[gang-workers-0-0] attempt 0 process 0") <
                  lines.index("[gang-workers-0-0] attempt 1 process 0"), lines)
            # a pod of the previous attempt still there: logs group them as local runs do
            left = {"apiVersion": "v1", "kind": "Pod", "metadata": {
                "name": "gang-left-over", "labels": {
                    **pods1[0]["metadata"]["labels"], L_ATTEMPT: "0"}},
                "spec": {"hostname": "gang-workers-0-0", "containers": [container()]}}
            expect(env.server.post(c.path("pods", api="/api/v1"), left), 201, "left-over pod")
            log_lines(env, c, "gang-left-over", "from attempt 0\n")
            rc, out, err = jaxset(env, "logs", "gang", "-n", c.ns)
            check(rc == 0 and out == "--- restart attempt 0 ---\n"
                  "[gang-workers-0-0] from attempt 0\n"
                  "--- restart attempt 1 ---\n"
                  "[gang-workers-0-0] attempt 1 process 0\n"
                  "[gang-workers-0-1] attempt 1 process 1\n", f"{rc} {out!r} {err}")
        text = w.text()
        rows = [ln for ln in text.splitlines() if ln.startswith("gang ")]
        check(text.splitlines()[0].split() == ["NAME", "STATE", "RESTARTS", "READY", "ACTIVE",
                                                "SUCCEEDED", "FAILED", "AGE"], text)
        check(re.match(r"gang +Running +0 +1/1 +1 +0/1 +0 ", rows[0]), rows)
        check(any(re.match(r"gang +\w+ +1 ", r) for r in rows), rows)
        # rows in the header's columns (a wider cell pushes the rest of its own row only)
        start = text.splitlines()[0].index("RESTARTS")
        check(rows[0][start - 1] == " " and rows[0][start] == "0", rows)
        check(all(len(r.split()) == 8 for r in rows), rows)
    finally:
        check(w.stop() in (0, -signal.SIGINT, 130), "get -w stopped")
        if f and f.proc.poll() is None:
            f.stop()


# ====================================================================== wait


@test
def wait_exit_statuses(env):
    c = new_case(env, "w")
    submit(env, c, jobset("w"))
    c.name = "w"
    jobs = c.wait_jobs(1)
    rc, out, err, took = timed(env, "wait", "w", "-n", c.ns, "--for=condition=Completed",
                               "--timeout=1500ms")
    check(rc == 124 and took < 10, f"{rc} {err} {took}")
    bg = Bg(env, "wait", "w", "-n", c.ns, "--timeout", "60s")
    c.fail(jobs[0])                 # maxRestarts 2: a restart, not a failure
    c.wait_status(lambda st: st.get("restarts") == 1, "restarts 1")
    check(bg.proc.poll() is None, "wait ended on a restart")
    if not c.s.has_gc:        # no pods hold the old Job: the garbage collector lets it go
        c.release(c.wait_terminating(1))
    jobs = c.wait_jobs(1, attempt_=1)
    c.complete(jobs[0])
    rc = bg.finish(30)
    check(rc == 0 and bg.text() == "jobset.jobset.x-k8s.io/w condition met\n",
          f"{rc} {bg.text()} {bg.errors()}")
    rc, out, err = jaxset(env, "describe", "w", "-n", c.ns)
    golden("describe-jobset-restarted.txt", out, c.ns)
    rc, out, err = jaxset(env, "wait", "w", "-n", c.ns, "--for=condition=Suspended=False")
    check(rc == 1 and "never be condition Suspended=False" in err, f"{rc} {err}")
    rc, out, err = jaxset(env, "wait", "nope", "-n", c.ns)
    check(rc == 2 and "not found" in err, err)
    rc, out, err = jaxset(env, "wait", "w", "-n", c.ns, "--for=Done")
    check(rc == 2 and "--for takes" in err, err)
    # deleted while waited for (once its watch is open: the test server counts them)
    if not env.server.has_admin:
        return
    c2 = new_case(env, "w2")
    submit(env, c2, jobset("w2"))
    bg = Bg(env, "wait", "w2", "-n", c2.ns)
    # the only watch of this namespace: the controller's watches are cluster-wide
    poll(lambda: env.server.admin("state", method="GET").json["openWatchesByNamespace"]
         .get(c2.ns, 0) > 0, "the wait's watch")
    expect(env.server.delete(c2.js_path(name="w2"), {"propagationPolicy": "Background"}), 200,
           "delete")
    rc = bg.finish(30)
    check(rc == 1 and "was deleted" in bg.errors(), f"{rc} {bg.errors()}")


# ====================================================================== kubeconfig


def kubeconfig_with_contexts(env, path, ns_a, ns_b):
    """The server's kubeconfig with two more contexts: ctx-a (namespace ns_a) current, ctx-b
    (ns_b) and ctx-none (no namespace)."""
    with open(env.server.kubeconfig, encoding="utf-8") as f:
        text = f.read()
    kc = decode_yaml(env, text)
    base = kc["contexts"][0]["context"]
    kc["contexts"] = [{"name": "ctx-a", "context": {**base, "namespace": ns_a}},
                      {"name": "ctx-b", "context": {**base, "namespace": ns_b}},
                      {"name": "ctx-none", "context": {k: v for k, v in base.items()
                                                       if k != "namespace"}}]
    kc["current-context"] = "ctx-a"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(kc, f)
    return path


def names_in(env, *args, **kw):
    rc, out, err = jaxset(env, "get", "-o", "name", *args, **kw)
    check(rc == 0, f"{args}: {rc} {err}")
    return out.split()


@test
def kubeconfig_precedence(env):
    a, b = new_case(env, "a"), new_case(env, "b")
    submit(env, a, jobset("in-a"))
    submit(env, b, jobset("in-b"))
    kc1 = kubeconfig_with_contexts(env, os.path.join(env.dir, "kc1"), a.ns, b.ns)
    kc2 = kubeconfig_with_contexts(env, os.path.join(env.dir, "kc2"), b.ns, a.ns)
    A, B = ["jobset.jobset.x-k8s.io/in-a"], ["jobset.jobset.x-k8s.io/in-b"]
    # KUBECONFIG: the first file's current-context wins
    check(names_in(env, extra_env={"KUBECONFIG": f"{kc1}:{kc2}"}) == A, "KUBECONFIG order")
    check(names_in(env, extra_env={"KUBECONFIG": f"{kc2}:{kc1}"}) == B, "KUBECONFIG order 2")
    # --kubeconfig over KUBECONFIG; --context over current-context; -n over the context's
    check(names_in(env, "--kubeconfig", kc2, extra_env={"KUBECONFIG": kc1}) == B, "--kubeconfig")
    check(names_in(env, "--context", "ctx-b", extra_env={"KUBECONFIG": kc1}) == B, "--context")
    check(names_in(env, "--context", "ctx-b", "-n", a.ns, extra_env={"KUBECONFIG": kc1}) == A,
          "-n over the context")
    check(names_in(env, "--namespace", b.ns, extra_env={"KUBECONFIG": kc1}) == B, "--namespace")
    # -A: every namespace, whatever the context says
    rc, out, err = jaxset(env, "get", "-A", extra_env={"KUBECONFIG": kc1})
    rows = {tuple(ln.split()[:2]) for ln in out.splitlines()[1:]}
    check(rc == 0 and out.split()[:2] == ["NAMESPACE", "NAME"] and
          {(a.ns, "in-a"), (b.ns, "in-b")} <= rows, out)
    # a context without a namespace: default
    rc, out, err = jaxset(env, "get", "--context", "ctx-none", extra_env={"KUBECONFIG": kc1})
    check(rc == 0 and err == "No resources found in default namespace.\n", err)
    # ~/.kube/config when KUBECONFIG is unset
    os.makedirs(os.path.join(env.home, ".kube"), exist_ok=True)
    home_kc = os.path.join(env.home, ".kube", "config")
    kubeconfig_with_contexts(env, home_kc, b.ns, a.ns)
    try:
        check(names_in(env, kubeconfig=False) == B, "~/.kube/config")
    finally:
        os.unlink(home_kc)
    rc, out, err = jaxset(env, "get", "--context", "nope", extra_env={"KUBECONFIG": kc1})
    check(rc == 3 and 'context "nope" not found' in err and len(err.splitlines()) == 1, err)
    rc, out, err = jaxset(env, "get", "--kubeconfig", os.path.join(env.dir, "missing"))
    check(rc == 3 and "missing" in err and len(err.splitlines()) == 1, err)


# ====================================================================== kubectl jaxset


@test
def kubectl_plugin(env):
    kubectl = subprocess.run(["which", "kubectl"], capture_output=True, text=True).stdout.strip()
    if not kubectl:
        raise Skip("kubectl is not installed")
    bindir = os.path.dirname(os.path.abspath(BIN))
    link = os.path.join(bindir, "kubectl-jaxset")
    check(os.path.islink(link) and os.readlink(link) == "jaxset", f"no link {link}")
    e = env.env(PATH=f"{bindir}:{os.environ.get('PATH', '')}")
    p = subprocess.run([kubectl, "plugin", "list"], capture_output=True, text=True, env=e)
    check(p.returncode == 0 and link in p.stdout, f"{p.stdout} {p.stderr}")
    c = new_case(env, "kp")
    submit(env, c, jobset("kp"))
    p = subprocess.run([kubectl, "jaxset", "get", "kp", "-n", c.ns, "-o", "name"],
                       capture_output=True, text=True, env=e)
    check(p.returncode == 0 and p.stdout == "jobset.jobset.x-k8s.io/kp\n", p.stderr)
    rc, out, _ = jaxset(env, "get", "kp", "-n", c.ns, prog=link)
    check(rc == 0 and out.startswith("NAME"), out)
    p = subprocess.run([kubectl, "jaxset", "get", "nope", "-n", c.ns],
                       capture_output=True, text=True, env=e)
    check(p.returncode == 2 and "not found" in p.stderr, p.stderr)


# ====================================================================== completion


@test
def completion_scripts(env):
    rc, out, _ = jaxset(env, "completion", "bash")
    check(rc == 0, out)
    script = os.path.join(env.dir, "comp.bash")
    with open(script, "w", encoding="utf-8") as f:
        f.write(out)
    def complete(*words):
        cmd = (f"source {script}; COMP_WORDS=(jaxset {' '.join(words)}); "
               f"COMP_CWORD={len(words)}; _jaxset; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        return subprocess.run(["bash", "-c", cmd], capture_output=True, text=True).stdout.split()
    check(set(complete("")) >= {"submit", "get", "describe", "logs", "wait", "delete",
                                "completion", "run", "validate"}, complete(""))
    check(complete("sub") == ["submit"], complete("sub"))
    check(set(complete("logs", "--")) >= {"--process-id", "--pod", "--replicated-job", "--since",
                                          "--tail", "--prefix", "--follow", "--kubeconfig",
                                          "--context", "--namespace", "--request-timeout"},
          complete("logs", "--"))
    check(set(complete("delete", "--c")) == {"--cascade", "--context"}, complete("delete", "--c"))
    rc, out, _ = jaxset(env, "completion", "zsh")
    check(rc == 0 and out.startswith("#compdef jaxset kubectl-jaxset") and "--dry-run" in out,
          out[:200])
    zsh = subprocess.run(["which", "zsh"], capture_output=True, text=True).stdout.strip()
    if zsh:
        p = subprocess.run([zsh, "-n"], input=out, capture_output=True, text=True)
        check(p.returncode == 0, p.stderr)
    rc, out, err = jaxset(env, "completion", "fish")
    check(rc == 2 and "bash or zsh" in err, err)


# ====================================================================== bad input


def kubeconfig_for(env, server_url, name):
    path = os.path.join(env.dir, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"apiVersion": "v1", "kind": "Config", "current-context": "x",
                   "clusters": [{"name": "x", "cluster": {"server": server_url}}],
                   "contexts": [{"name": "x", "context": {"cluster": "x", "user": "u"}}],
                   "users": [{"name": "u", "user": {"token": "t"}}]}, f)
    return path


class BlackHole:
    """A TCP server that accepts connections and never answers."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.conns = []
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        try:
            while True:
                self.conns.append(self.sock.accept()[0])
        except OSError:
            pass

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


@test
def unreachable_server(env):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()                                             # nothing listens there now
    kc = kubeconfig_for(env, f"http://127.0.0.1:{port}", "kc-closed")
    for args in (("get",), ("get", "x"), ("describe", "x"), ("logs", "x"), ("wait", "x"),
                 ("delete", "x"), ("submit", env.write("u.json", [jobset("u")]))):
        rc, out, err, took = timed(env, *args, "--kubeconfig", kc)
        check(rc == 3 and out == "" and len(err.splitlines()) == 1 and took < 5,
              f"{args}: {rc} {took:.1f}s {err!r}")
        check(err.startswith(f"jaxset {args[0]}: ") and f"cannot reach the API server at "
              f"http://127.0.0.1:{port}: " in err, err)
    hole = BlackHole()
    try:
        kc = kubeconfig_for(env, f"http://127.0.0.1:{hole.port}", "kc-hole")
        rc, out, err, took = timed(env, "get", "--kubeconfig", kc, "--request-timeout", "1s")
        check(rc == 3 and len(err.splitlines()) == 1 and 0.9 < took < 5,
              f"{rc} {took:.1f}s {err!r}")
        check("cannot reach the API server" in err and "timed out" in err.lower(), err)
    finally:
        hole.close()


@test
def bad_input(env):
    c = new_case(env, "bad")
    # unknown kind, missing name, bad flags: usage errors, exit 2
    for args, msg in ((("get", "foo/x"), 'unknown kind "foo": one of jobset, jaxjob, trainjob'),
                      (("get", "pods", "--all"), 'unknown kind "pods"'),
                      (("describe", "configmap/x"), 'unknown kind "configmap"'),
                      (("get", "-o", "table"), "-o must be wide, json, yaml, name or jsonpath"),
                      (("wait",), "no NAME given"),
                      (("delete", "x", "--cascade=later"), "--cascade must be"),
                      (("get", "x", "--request-timeout", "soon"), "--request-timeout takes"),
                      (("logs", "x", "--process-id", "-1"), "--process-id takes a number"),
                      (("submit",), "no FILE given"),
                      (("submit", "x.json", "--dry-run=maybe"), "--dry-run must be")):
        rc, out, err = jaxset(env, *args, "-n", c.ns)
        check(rc == 2 and err.startswith(f"jaxset {args[0]}: {msg}"), f"{args}: {rc} {err}")
    # a namespace that does not exist
    rc, out, err = jaxset(env, "get", "x", "-n", "no-such-ns")
    check(rc == 2 and "not found" in err and len(err.splitlines()) == 1, err)
    rc, out, err = jaxset(env, "submit", "-n", "no-such-ns", env.write("m.json", [jobset("m")]))
    check(rc == 2 and err == f'jaxset submit: {env.dir}/m.json: namespaces "no-such-ns" not '
                             'found\n', err)
    # invalid manifests: exit 2, validate's lines, nothing sent
    bad = jobset("invalid")
    bad["spec"]["replicatedJobs"][0]["replicas"] = -1
    path = env.write("invalid.json", [bad])
    rc, out, err = jaxset(env, "submit", "-n", c.ns, path)
    vrc, _, verr = jaxset(env, "validate", path)
    check(rc == 2 and vrc == 2 and err == verr and "replicas: Invalid value: -1" in err, err)
    check(env.server.get(c.js_path(name="invalid")).status == 404, "nothing sent")
    # the server refuses an object: its causes as validate prints them; nothing created
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "Bad_Name"}}
    path = env.write("refused.json", [cm, jobset("refused")])
    rc, out, err = jaxset(env, "submit", "-n", c.ns, path)
    check(rc == 2 and out == "" and err.startswith(f"{path}: metadata.name: Invalid value: "
                                                   '"Bad_Name": '), f"{rc} {out} {err}")
    check(env.server.get(c.js_path(name="refused")).status == 404, "the JobSet not created")
    # a name taken
    path = env.write("twice.json", [jobset("twice")])
    submit(env, c, jobset("twice"), name="twice.json")
    rc, out, err = jaxset(env, "submit", "-n", c.ns, os.path.join(env.dir, f"{c.ns}-twice.json"))
    check(rc == 2 and err.endswith('jobsets.jobset.x-k8s.io "twice" already exists\n'), err)
    # -n against the object's own namespace
    other = jobset("elsewhere")
    other["metadata"]["namespace"] = "somewhere"
    rc, out, err = jaxset(env, "submit", "-n", c.ns, env.write("ns.json", [other]))
    check(rc == 2 and 'metadata.namespace: Invalid value: "somewhere"' in err, err)
    # dry runs: nothing stored
    path = env.write("dry.json", [jobset("dry")])
    rc, out, err = jaxset(env, "submit", "-n", c.ns, path, "--dry-run=server")
    check(rc == 0 and out == "jobset.jobset.x-k8s.io/dry created (server dry run)\n", out + err)
    rc, out, err = jaxset(env, "submit", "-n", c.ns, path, "--dry-run=client",
                          "--kubeconfig", os.path.join(env.dir, "no-such-file"))
    check(rc == 2 or (rc == 0 and out == "jobset.jobset.x-k8s.io/dry created (dry run)\n"),
          out + err)
    check(env.server.get(c.js_path(name="dry")).status == 404, "a dry run stored nothing")
    # a kind the cluster does not serve: exit 3, nothing created
    crd_name = "trainingruntimes.trainer.kubeflow.org"
    expect(env.server.delete(f"{CRDS}/{crd_name}"), 200, "delete the CRD")
    rt_path = f"/apis/trainer.kubeflow.org/v1alpha1/namespaces/{c.ns}/trainingruntimes"
    poll(lambda: env.server.get(rt_path).status == 404, "trainingruntimes no longer served")
    try:
        rt, tj = trainjob("tj-nocrd", "rt-nocrd")
        rt["kind"] = "TrainingRuntime"
        tj["spec"]["runtimeRef"]["kind"] = "TrainingRuntime"
        path = env.write("nocrd.json", [rt, tj])
        rc, out, err = jaxset(env, "submit", "-n", c.ns, path)
        check(rc == 3 and out == "" and err == f"jaxset submit: {path}: the cluster does not "
              "serve trainingruntime.trainer.kubeflow.org/v1alpha1 (is its "
              "CustomResourceDefinition installed?)\n", f"{rc} {out} {err}")
        check(env.server.get(f"/apis/trainer.kubeflow.org/v1alpha1/namespaces/{c.ns}/"
                             "trainjobs/tj-nocrd").status == 404, "the TrainJob not created")
    finally:
        poll(lambda: env.server.get(f"{CRDS}/{crd_name}").status == 404, "CRD gone")
        install(env.server, [x for x in EXTRA_CRDS if x["metadata"]["name"] == crd_name][0])


@test
def submit_wait(env):
    """submit --wait: 0 once the job is Completed, 1 when it failed, 124 after --timeout."""
    c = new_case(env, "sw")
    path = env.write(f"{c.ns}-sw.json", [jobset("sw", max_restarts=0)])
    bg = Bg(env, "submit", "-n", c.ns, path, "--wait")
    c.name = "sw"
    jobs = c.wait_jobs(1)
    c.complete(jobs[0])
    rc = bg.finish(30)
    check(rc == 0 and bg.text() == "jobset.jobset.x-k8s.io/sw created\n"
          "jobset.jobset.x-k8s.io/sw condition met\n", f"{rc} {bg.text()} {bg.errors()}")
    path = env.write(f"{c.ns}-sf.json", [jobset("sf", max_restarts=0)])
    bg = Bg(env, "submit", "-n", c.ns, path, "--wait")
    c.name = "sf"
    c.fail(c.wait_jobs(1)[0])
    rc = bg.finish(30)
    check(rc == 1 and "is Failed, it will never be Completed" in bg.errors(),
          f"{rc} {bg.errors()}")
    path = env.write(f"{c.ns}-st.json", [jobset("st")])
    rc, out, err, took = timed(env, "submit", "-n", c.ns, path, "--wait", "--timeout", "1s")
    check(rc == 124 and took < 10 and "timed out" in err, f"{rc} {err}")


# ====================================================================== local mode


@test
def local_runs_without_a_cluster(env):
    """No kubeconfig (or --local): get, describe, logs act on runs of this machine; wait and
    delete too."""
    e = {"KUBECONFIG": ""}
    ex = os.path.join(SRC, "examples", "jax-allreduce.yaml")
    p = subprocess.run([BIN, "run", "-q", ex], capture_output=True, text=True,
                       env=env.env(kubeconfig=False))
    check(p.returncode == 0, p.stderr)
    rc, out, err = jaxset(env, "get", kubeconfig=False, extra_env=e)
    check(rc == 0 and out.split()[:6] == ["NAME", "STATE", "TERMINALSTATE", "RESTARTS", "AGE",
                                          "DURATION"], out)
    rc, out, err = jaxset(env, "get", "--local")             # KUBECONFIG set: --local wins
    check(rc == 0 and "TERMINALSTATE" in out and "allreduce" in out, out)
    rc, out, err = jaxset(env, "wait", "allreduce", kubeconfig=False)
    check(rc == 0 and out == "jobset.jobset.x-k8s.io/allreduce condition met\n",
          f"{rc} {out} {err}")
    rc, out, err = jaxset(env, "wait", "allreduce", "--for=Failed", kubeconfig=False)
    check(rc == 1, f"{rc} {out} {err}")
    rc, out, err = jaxset(env, "describe", "allreduce", "--local")
    check(rc == 0 and "Run Directory:" in out, out)
    same_shapes_here_and_there(env, "allreduce", {"--local"}, kubeconfig=False)
    rc, out, err = jaxset(env, "logs", "jobset/allreduce", "--local", "--tail", "1")
    check(rc == 0 and out and all(l.startswith("[allreduce-") for l in out.splitlines()), out)
    rc, out, err = jaxset(env, "delete", "allreduce", "--local")
    check(rc == 0 and out == 'run "allreduce" deleted\n', f"{rc} {out} {err}")
    rc, out, err = jaxset(env, "get", "allreduce", "--local")
    check(rc == 2, out)
    rc, out, err = jaxset(env, "delete", "allreduce", "--local")
    check(rc == 2 and "no run" in err, err)
    # a running run: refused, then stopped with --force
    long = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "sleeper"},
            "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {
                "template": {"spec": {"restartPolicy": "Never", "containers": [
                    {"name": "c", "image": "x", "command": ["sleep", "300"]}]}}}}}]}}
    run = subprocess.Popen([BIN, "run", "-q", env.write("sleeper.json", [long])],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           env=env.env(kubeconfig=False))
    try:
        poll(lambda: "Running" in jaxset(env, "get", "sleeper", "--local")[1], "running")
        rc, out, err = jaxset(env, "wait", "sleeper", "--local", "--timeout", "0.5")
        check(rc == 124, f"{rc} {err}")
        rc, out, err = jaxset(env, "delete", "sleeper", "--local")
        check(rc == 2 and "--force" in err and run.poll() is None, err)
        rc, out, err = jaxset(env, "delete", "sleeper", "--local", "--force")
        check(rc == 0 and out == 'run "sleeper" deleted\n', f"{rc} {out} {err}")
        check(run.wait(10) == 143, f"the run's status {run.returncode}")
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        run.stderr.close()
    rc, out, err = jaxset(env, "get", "-w", "--local")  # no run is going: the watch ends
    check(rc == 0 and out.startswith("NAME "), f"{rc} {out} {err}")


@test
def cluster_flags_in_help(env):
    """Every verb that talks to a cluster documents kubectl's flags (and --local where a local
    run is meant too); the usage error names the same usage."""
    for cmd in ("submit", "get", "describe", "logs", "wait", "delete"):
        rc, out, err = jaxset(env, cmd, "--help")
        check(rc == 0 and out.startswith(f"usage: jaxset {cmd}"), out)
        for flag in ("--kubeconfig FILE", "--context NAME", "-n, --namespace NS",
                     "--request-timeout D"):
            check(flag in out, f"{cmd}: {flag} missing from its help")
        check(("--local" in out) == (cmd != "submit"), f"{cmd}: --local")
        check("3 when" in out, f"{cmd}: exit status 3 undocumented")
    check("124" in jaxset(env, "wait", "--help")[1], "wait's 124")


def setup():
    socket.setdefaulttimeout(30)
    return Env()


def teardown(env):
    env.controller.kill()
    if not os.environ.get("JAXSET_KEEP_LOGS"):
        env.controller.cleanup()
    env.server.stop()
    import shutil
    shutil.rmtree(env.dir, ignore_errors=True)


def before_each(env, name):
    env.cases = []


if __name__ == "__main__":
    main(setup, teardown, None, before_each)
