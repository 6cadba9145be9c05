"""Scenario tests of `jaxset controller` for the JAX job kinds: Kubeflow JAXJobs
(kubeflow.org/v1) and Trainer v2 TrainJobs with their runtimes (trainer.kubeflow.org/v1alpha1),
envtest-style as test_controller.py: the test creates the objects, plays the Job controller and
the kubelet (Job status, pods), and waits with deadlines for the JobSet each kind owns and for
the kind's own status, conditions and events as the upstream operators write them
(kubeflow/training-operator pkg/controller.v1/jax + pkg/controller.v1/common; kubeflow/trainer
pkg/controller/trainjob_controller.go + pkg/runtime/framework/plugins/{jax,jobset}).

The server is the project's test API server, or a real kube-apiserver (with
kube-controller-manager's garbage collector when present) when KUBEBUILDER_ASSETS names a folder
holding them; the CRDs are those of config/crd. `python3 test_kinds.py NAME...` runs some."""
import json
import os
import socket
import subprocess
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctltest import (BIN, CRDS, JS_API, L_JOBSET, L_RJ, Case, Controller, cond_true,  # noqa: E402
                     now_rfc3339, poll, steady)
from kubetest import SRC, Server, check, expect, main, test, wait_for  # noqa: E402

JJ_API = "/apis/kubeflow.org/v1"
TR_API = "/apis/trainer.kubeflow.org/v1alpha1"
CRD_DIR = os.path.join(SRC, "config", "crd")
RUNTIME_FILE = os.path.join(SRC, "config", "runtimes", "jax_distributed.yaml")
OWNER_LABELS = {"training.kubeflow.org/operator-name": "jaxjob-controller",
                "training.kubeflow.org/replica-type": "worker"}


def decode(path):
    out = subprocess.run([BIN, "decode", path], check=True, capture_output=True).stdout
    return json.loads(out)


def crds():
    return [decode(os.path.join(CRD_DIR, f))[0] for f in sorted(os.listdir(CRD_DIR))
            if f.endswith(".yaml") and f != "kustomization.yaml"]   # not src/, their sources


def start_server():
    import envtest
    assets = envtest.assets_dir()
    if assets:
        return envtest.KubeAPIServer(assets, crds=crds())
    s = Server()
    for c in crds():
        expect(s.post(CRDS, c), 201, c["metadata"]["name"])
    for path in (f"{JS_API}/jobsets", f"{JJ_API}/jaxjobs", f"{TR_API}/trainjobs",
                 f"{TR_API}/clustertrainingruntimes"):
        wait_for(lambda p=path: s.get(p).status == 200, 10, f"{path} served")
    return s


class Env:
    def __init__(self):
        self.server = start_server()
        import envtest
        print(envtest.describe(self.server), flush=True)
        self.controllers = []
        self.cases = []
        self.controller = self.start_controller()

    def start_controller(self, *args, tag="ctl"):
        c = Controller(self.server, *args, tag=tag)
        self.controllers.append(c)
        return c


# ---------------------------------------------------------------------- objects

def jaxjob(name="jj", replicas=2, restart=None, run_policy=None, containers=None):
    worker = {"replicas": replicas, "template": {"spec": {"containers": containers or [
        {"name": "jax", "image": "python:3.12", "command": ["python", "train.py"]}]}}}
    if restart:
        worker["restartPolicy"] = restart
    spec = {"jaxReplicaSpecs": {"Worker": worker}}
    if run_policy is not None:
        spec["runPolicy"] = run_policy
    return {"apiVersion": "kubeflow.org/v1", "kind": "JAXJob", "metadata": {"name": name},
            "spec": spec}


class KindCase(Case):
    """A namespace and one JAXJob (or TrainJob) in it; the Case helpers for its JobSet's Jobs
    work as they are (the JobSet has the kind's name)."""

    api, plural = JJ_API, "jaxjobs"

    def create(self, body=None):
        r = expect(self.s.post(self.path(self.plural, api=self.api), body or self.body), 201,
                   f"create {self.plural}")
        self.name, self.uid = r["metadata"]["name"], r["metadata"]["uid"]
        return r

    def obj(self):
        r = self.s.get(self.path(self.plural, self.name, api=self.api))
        return r.json if r.status == 200 else None

    def status(self):
        return (self.obj() or {}).get("status") or {}

    def jobset(self):
        return Case.js(self)

    def js(self, name=None):
        return self.obj()

    def patch_obj(self, body):
        return expect(self.s.patch(self.path(self.plural, self.name, api=self.api), body), 200,
                      f"patch {self.plural}")

    def wait_jobset(self):
        return poll(lambda: self.jobset(), f"the JobSet of {self.ns}/{self.name}")

    def conds(self):
        return {c["type"]: (c["status"], c.get("reason")) for c in
                self.status().get("conditions") or []}

    def wait_conds(self, want):
        """Every condition exactly as `want` ({type: (status, reason)}), no other."""
        def ok():
            got = self.conds()
            return (got or True) if got == want else (False, got)
        return poll(ok, f"conditions {want}")

    def wait_replicas(self, **want):
        def ok():
            w = (self.status().get("replicaStatuses") or {}).get("Worker") or {}
            got = {k: w.get(k, 0) for k in want}
            return w if got == want else (False, w)
        return poll(ok, f"replicaStatuses.Worker {want}")

    def job_status(self, name, **fields):
        def m(st, j):
            st.setdefault("startTime", now_rfc3339())
            st.update(fields)
        return self.write_job_status(name, m)

    def gone(self, what):
        poll(lambda: self.obj() is None if what == "self" else self.jobset() is None,
             f"{what} deleted")

    def pod(self, name, phase, job):
        """A pod of the JobSet's Job in `phase`, unscheduled (so a delete is immediate)."""
        m = job["metadata"]
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": name, "labels": {L_JOBSET: self.name, "controller-uid": m["uid"],
                                     **OWNER_LABELS},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": m["name"],
                                 "uid": m["uid"], "controller": True,
                                 "blockOwnerDeletion": True}]},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "jax",
                                                                 "image": "python:3.12"}]}}
        p = expect(self.s.post(self.path("pods", api="/api/v1"), body), 201, "pod")
        p["status"] = {"phase": phase}
        expect(self.s.put(self.path("pods", name, "status", api="/api/v1"), p), 200,
               "pod status")

    def live_pods(self):
        return sorted(p["metadata"]["name"] for p in self.pods()
                      if not p["metadata"].get("deletionTimestamp"))


def new_case(env, body):
    return KindCase(env, body)


# ====================================================================== JAXJob


@test
def jaxjob_runs_as_its_jobset_through_every_condition(env):
    c = new_case(env, jaxjob(restart="OnFailure"))
    js = c.wait_jobset()
    refs = js["metadata"]["ownerReferences"]
    check(len(refs) == 1 and refs[0]["kind"] == "JAXJob" and refs[0]["uid"] == c.uid and
          refs[0]["controller"] is True and refs[0]["apiVersion"] == "kubeflow.org/v1", refs)
    rjs = js["spec"]["replicatedJobs"]
    check(len(rjs) == 1 and rjs[0]["name"] == "worker" and rjs[0]["replicas"] == 1, rjs)
    jspec = rjs[0]["template"]["spec"]
    check(jspec["parallelism"] == 2 and jspec["completions"] == 2, jspec)
    tmpl = jspec["template"]
    check({**tmpl["metadata"]["labels"], **OWNER_LABELS} == tmpl["metadata"]["labels"] and
          tmpl["metadata"]["labels"]["training.kubeflow.org/job-name"] == c.name, tmpl)
    check(tmpl["spec"]["restartPolicy"] == "OnFailure", tmpl["spec"])
    ports = tmpl["spec"]["containers"][0]["ports"]
    # The JobSet CRD defaults a port's protocol, as upstream's (core/v1 ContainerPort).
    check({"name": "jaxjob-port", "containerPort": 6666, "protocol": "TCP"} in ports, ports)
    check(js["metadata"]["annotations"]["jaxset.dev/jax-runtime"] == "jaxjob", js["metadata"])
    check("ttlSecondsAfterFinished" not in js["spec"], js["spec"])
    # Created, startTime, and the Job the JobSet controller makes with the JAXJob variables.
    c.wait_conds({"Created": ("True", "JAXJobCreated")})
    job = c.wait_jobs(1)[0]
    env_names = {e["name"] for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    check({"COORDINATOR_ADDRESS", "COORDINATOR_PORT", "NUM_PROCESSES", "PROCESS_ID",
           "PYTHONUNBUFFERED"} <= env_names, env_names)
    st = c.status()
    check(st.get("startTime") and st.get("lastReconcileTime") and
          st["conditions"][0]["message"] == f"JAXJob {c.name} is created.", st)
    w = c.wait_replicas(active=0, succeeded=0, failed=0)
    check(w["selector"] == f"training.kubeflow.org/job-name={c.name},training.kubeflow.org/"
          "operator-name=jaxjob-controller,training.kubeflow.org/replica-type=worker", w)
    check(w["labelSelector"] == {"matchLabels": {"training.kubeflow.org/job-name": c.name,
                                                 **OWNER_LABELS}}, w)
    jname = job["metadata"]["name"]
    # Running.
    c.job_status(jname, active=2, ready=2)
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("True", "JAXJobRunning")})
    c.wait_replicas(active=2, succeeded=0, failed=0)
    # The scale subresource reads Worker.replicas and replicaStatuses.Worker (kube-apiserver
    # serves it from the CRD; the test API server does not implement /scale).
    r = c.s.get(c.path("jaxjobs", c.name, "scale", api=JJ_API))
    if r.status != 404 or c.s.kind == "kube-apiserver":
        sc = expect(r, 200, "scale")
        check(sc["spec"]["replicas"] == 2 and sc["status"]["replicas"] == 2 and
              sc["status"]["selector"] == w["selector"], sc)
    check(c.conds() and [x for x in c.status()["conditions"] if x["type"] == "Running"][0]
          ["message"] == f"JAXJob {c.ns}/{c.name} is running.", c.status())
    # A pod fails (OnFailure): Restarting replaces Running, with a Warning event.
    c.job_status(jname, active=1, ready=1, failed=1)
    c.wait_conds({"Created": ("True", "JAXJobCreated"),
                  "Restarting": ("True", "JAXJobRestarting")})
    c.wait_event("JAXJobRestarting", "Warning",
                 f"JAXJob {c.name} is restarting because 1 Worker replica(s) failed.")
    # Back to two running pods: Running replaces Restarting.
    c.job_status(jname, active=2, ready=2)
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("True", "JAXJobRunning")})
    # Success: Succeeded, Running False, completionTime, the event.
    c.complete(jname)
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("False", "JAXJobRunning"),
                  "Succeeded": ("True", "JAXJobSucceeded")})
    c.wait_event("JAXJobSucceeded", "Normal", f"JAXJob {c.ns}/{c.name} successfully completed.")
    st = c.wait_replicas(active=0, succeeded=2, failed=1)
    check(c.status().get("completionTime"), c.status())
    # kubectl get: the State printer column is the last condition's type.
    tbl = expect(c.s.get(c.path("jaxjobs", c.name, api=JJ_API), headers={
        "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}), 200, "table")
    cols = [x["name"] for x in tbl["columnDefinitions"]]
    check(cols[:3] == ["Name", "State", "Age"] and tbl["rows"][0]["cells"][1] == "Succeeded",
          tbl)
    ev = c.events("JAXJobSucceeded")[0]
    check(ev["involvedObject"]["kind"] == "JAXJob" and ev["involvedObject"]["uid"] == c.uid and
          ev["source"]["component"] == "jaxjob-controller", ev)
    # Deleting the JAXJob takes its JobSet (and the JobSet its Jobs) with it.
    expect(c.s.delete(c.path("jaxjobs", c.name, api=JJ_API)), 200, "delete JAXJob")
    if c.s.has_gc:
        c.gone("jobset")
        poll(lambda: not c.jobs(live_only=True), "the Jobs deleted")


KF = "training.kubeflow.org/"
CIDX = "batch.kubernetes.io/job-completion-index"


def index_pods(c, job, n):
    """The pods the Job controller makes for an Indexed Job of n completions: the template's
    labels and annotations, with the completion index as an annotation and (Kubernetes >=
    1.28) a label, owned by the Job."""
    m, t = job["metadata"], job["spec"]["template"]
    for i in range(n):
        meta = t.get("metadata") or {}
        body = {"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": f"{m['name']}-{i}-x{i}",
            "labels": {**(meta.get("labels") or {}), CIDX: str(i), "controller-uid": m["uid"]},
            "annotations": {**(meta.get("annotations") or {}), CIDX: str(i)},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": m["name"],
                                 "uid": m["uid"], "controller": True,
                                 "blockOwnerDeletion": True}]},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "jax",
                                                                 "image": "python:3.12"}]}}
        expect(c.s.post(c.path("pods", api="/api/v1"), body), 201, "pod")


def select_pods(c, **labels):
    """The pods' names the TrainingClient's get_job_pods finds: a label selector."""
    sel = ",".join(f"{k}={v}" for k, v in labels.items())
    r = expect(c.s.get(c.path("pods", api="/api/v1") + "?labelSelector=" +
                       urllib.parse.quote(sel)), 200, "pods")
    return sorted(p["metadata"]["name"] for p in r["items"])


def check_training_operator_labels(c, job, n):
    """Every pod of the JAXJob carries the Training Operator's labels (kubeflow/training-operator
    pkg/controller.v1/common/pod.go createNewPod): job-name, operator-name, replica-type=worker,
    its replica-index, job-role=master on index 0 only; and the TrainingClient's selectors
    (get_job_pods: is_master, replica_index) find exactly those pods."""
    def labelled():
        pods = {p["metadata"]["name"]: p["metadata"].get("labels") or {} for p in c.pods()}
        for name, lb in pods.items():
            idx = lb.get(CIDX)
            want = {KF + "job-name": c.name, KF + "operator-name": "jaxjob-controller",
                    KF + "replica-type": "worker", KF + "replica-index": idx}
            if idx == "0":
                want[KF + "job-role"] = "master"
            got = {k: v for k, v in lb.items() if k.startswith(KF)}
            if got != want:
                return False, (name, got)
        return pods if len(pods) == n else (False, pods)
    poll(labelled, f"the Training Operator's labels on {n} pods")
    jn = job["metadata"]["name"]
    check(select_pods(c, **{KF + "job-name": c.name, KF + "job-role": "master"}) ==
          [f"{jn}-0-x0"], "is_master")
    for i in range(n):
        check(select_pods(c, **{KF + "job-name": c.name, KF + "replica-type": "worker",
                                KF + "replica-index": i}) == [f"{jn}-{i}-x{i}"], i)


@test
def jaxjob_pods_carry_the_training_operators_labels(env):
    """Without the pod webhook (this controller runs none), the controller labels each pod
    of a JAXJob with its replica-index and job-role once it appears."""
    c = new_case(env, jaxjob(replicas=3))
    job = c.wait_jobs(1)[0]
    index_pods(c, job, 3)
    check_training_operator_labels(c, job, 3)


def play_gc(c, old_js):
    """What the garbage collector does for a Foreground deletion of the JobSet old_js (the test
    plays it when the server runs none): its Jobs deleted, then its finalizer removed."""
    uid = old_js["metadata"]["uid"]
    poll(lambda: (c.jobset() or {}).get("metadata", {}).get("deletionTimestamp") or
         (c.jobset() or {}).get("metadata", {}).get("uid") != uid, "the JobSet being deleted")
    if c.s.has_gc:
        return
    for j in c.jobs():
        if any(r.get("uid") == uid for r in j["metadata"].get("ownerReferences") or []):
            c.s.patch(c.path("jobs", j["metadata"]["name"]), {"metadata": {"finalizers": None}})
            c.s.delete(c.path("jobs", j["metadata"]["name"]), {"propagationPolicy": "Background"})
    c.s.patch(c.js_path(), {"metadata": {"finalizers": None}})


def job_of(c, js):
    """The (one) live Job of JobSet js."""
    uid = js["metadata"]["uid"]
    return poll(lambda: [j for j in c.jobs(live_only=True) if any(
        r.get("uid") == uid for r in j["metadata"].get("ownerReferences") or [])] or False,
        "the JobSet's Job")[0]


def new_jobset(c, old_uid):
    def ok():
        js = c.jobset()
        return js if js and js["metadata"]["uid"] != old_uid else False
    return poll(ok, "the JobSet made again")


@test
def jaxjob_scaled_restarts_its_gang_with_the_new_size(env):
    """Scaling a running JAXJob's Worker replicas (the scale subresource where the server
    serves it, as `kubectl scale jaxjob --replicas=3` does; else the same edit of
    spec.jaxReplicaSpecs.Worker.replicas) restarts the gang with the new size: Restarting with a
    Normal event saying why, the JobSet replaced by one of 3 pods, then Running with 3 active.
    A JAX gang cannot grow in place: its process count is fixed at initialize()."""
    c = new_case(env, jaxjob(replicas=2))
    js = c.wait_jobset()
    job = c.wait_jobs(1)[0]["metadata"]["name"]
    c.job_status(job, active=2, ready=2)
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("True", "JAXJobRunning")})
    scale = c.path("jaxjobs", c.name, "scale", api=JJ_API)
    r = c.s.get(scale)
    if r.status == 200:
        body = r.json
        body["spec"]["replicas"] = 3
        expect(c.s.put(scale, body), 200, "scale")
    else:  # the test API server does not serve /scale: the edit it makes
        c.patch_obj({"spec": {"jaxReplicaSpecs": {"Worker": {"replicas": 3}}}})
    why = (f"JAXJob {c.name} is restarting with 3 Worker replica(s) instead of 2: the JAX "
           "process count is fixed when the processes start.")
    c.wait_event("JAXJobRestarting", "Normal", why)
    c.wait_conds({"Created": ("True", "JAXJobCreated"),
                  "Restarting": ("True", "JAXJobRestarting")})
    check([x for x in c.status()["conditions"] if x["type"] == "Restarting"][0]["message"] ==
          why, c.status())
    play_gc(c, js)
    js2 = new_jobset(c, js["metadata"]["uid"])
    jspec = js2["spec"]["replicatedJobs"][0]["template"]["spec"]
    check(jspec["parallelism"] == 3 and jspec["completions"] == 3, jspec)
    job2 = job_of(c, js2)
    check(job2["spec"]["completions"] == 3, job2["spec"])
    envs = {e["name"]: e.get("value") for e in
            job2["spec"]["template"]["spec"]["containers"][0]["env"]}
    check(envs.get("NUM_PROCESSES") == "3", envs)
    c.job_status(job2["metadata"]["name"], active=3, ready=3)
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("True", "JAXJobRunning")})
    c.wait_replicas(active=3)
    if r.status == 200:
        sc = expect(c.s.get(scale), 200, "scale")
        check(sc["spec"]["replicas"] == 3 and sc["status"]["replicas"] == 3, sc)
    # a change of what the controller reads from the JAXJob itself restarts nothing
    c.patch_obj({"spec": {"runPolicy": {"cleanPodPolicy": "All", "ttlSecondsAfterFinished": 60}}})
    steady(lambda: c.jobset()["metadata"]["uid"] == js2["metadata"]["uid"] and
           "deletionTimestamp" not in c.jobset()["metadata"], "the JobSet kept")
    check(len(c.events("JAXJobRestarting")) == 1, c.events())


@test
def jaxjob_template_edit_restarts_and_a_bad_edit_fails(env):
    """Any other edit that changes the JobSet (here the pod template) restarts the gang the
    same way; an edit that can no longer run (no container named jax, where no webhook refused
    it) fails the JAXJob with a Warning event naming the field, and its JobSet goes."""
    c = new_case(env, jaxjob(replicas=2))
    js = c.wait_jobset()
    job = c.wait_jobs(1)[0]["metadata"]["name"]
    c.job_status(job, active=2, ready=2)
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("True", "JAXJobRunning")})
    c.patch_obj({"spec": {"jaxReplicaSpecs": {"Worker": {"template": {"metadata": {
        "labels": {"team": "ml"}}}}}}})
    c.wait_event("JAXJobRestarting", "Normal",
                 f"JAXJob {c.name} is restarting because its spec changed.")
    play_gc(c, js)
    js2 = new_jobset(c, js["metadata"]["uid"])
    labels = js2["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"][
        "labels"]
    check(labels.get("team") == "ml", labels)
    job2 = job_of(c, js2)
    c.job_status(job2["metadata"]["name"], active=2, ready=2)
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("True", "JAXJobRunning")})
    worker = c.obj()["spec"]["jaxReplicaSpecs"]["Worker"]
    worker["template"]["spec"]["containers"][0]["name"] = "trainer"
    c.patch_obj({"spec": {"jaxReplicaSpecs": {"Worker": worker}}})
    c.wait_event("JAXJobFailed", "Warning")
    st = c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("False", "JAXJobRunning"),
                       "Failed": ("True", "JAXJobFailed")})
    failed = [x for x in c.status()["conditions"] if x["type"] == "Failed"][0]["message"]
    check("must have at least one container with name jax" in failed, st)
    poll(lambda: c.jobset() is None or c.jobset()["metadata"].get("deletionTimestamp"),
         "the JobSet deleted")


@test
def jaxjob_never_fails_on_the_first_failed_pod(env):
    c = new_case(env, jaxjob(replicas=3))
    js = c.wait_jobset()
    check(js["spec"]["replicatedJobs"][0]["template"]["spec"]["backoffLimit"] == 0, js)
    job = c.wait_jobs(1)[0]["metadata"]["name"]
    c.job_status(job, active=3, ready=3)
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("True", "JAXJobRunning")})
    c.job_status(job, active=2, ready=2, failed=1)
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("False", "JAXJobRunning"),
                  "Failed": ("True", "JAXJobFailed")})
    c.wait_event("JAXJobFailed", "Normal",
                 f"JAXJob {c.name} is failed because 1 Worker replica(s) failed.")
    check(c.status().get("completionTime"), c.status())
    # Once Failed, nothing changes any more (upstream's setCondition).
    c.job_status(job, active=0, ready=0, succeeded=3, failed=1)
    steady(lambda: "Succeeded" not in c.conds(), "no Succeeded after Failed")


@test
def jaxjob_fails_with_its_jobs_backoff_limit(env):
    c = new_case(env, jaxjob(restart="OnFailure", run_policy={"backoffLimit": 3}))
    js = c.wait_jobset()
    check(js["spec"]["replicatedJobs"][0]["template"]["spec"]["backoffLimit"] == 3, js)
    job = c.wait_jobs(1)[0]["metadata"]["name"]
    c.job_status(job, active=2, ready=2)
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("True", "JAXJobRunning")})
    c.job_status(job, active=1, ready=1, failed=1)
    c.wait_conds({"Created": ("True", "JAXJobCreated"),
                  "Restarting": ("True", "JAXJobRestarting")})
    # The Job controller gives up: the JobSet fails, and so does the JAXJob (Restarting stays,
    # as upstream's filterOutCondition only turns Running to False).
    c.fail(job)
    c.wait_conds({"Created": ("True", "JAXJobCreated"),
                  "Restarting": ("True", "JAXJobRestarting"),
                  "Failed": ("True", "JAXJobFailed")})
    c.wait_event("JAXJobFailed", "Normal", f"Job {c.name} has failed because it has reached "
                 "the specified backoff limit")


@test
def jaxjob_active_deadline(env):
    c = new_case(env, jaxjob(restart="OnFailure", run_policy={"activeDeadlineSeconds": 2}))
    c.wait_jobset()
    job = c.wait_jobs(1)[0]["metadata"]["name"]
    c.job_status(job, active=2, ready=2)
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("True", "JAXJobRunning")})
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("False", "JAXJobRunning"),
                  "Failed": ("True", "JAXJobFailed")})
    c.wait_event("JAXJobFailed", "Normal", f"Job {c.name} has failed because it was active "
                 "longer than specified deadline")
    # Every pod goes, whatever cleanPodPolicy says: the JobSet is deleted.
    c.gone("jobset")
    steady(lambda: c.jobset() is None, "the JobSet is not created again")


@test
def jaxjob_suspend_and_resume(env):
    c = new_case(env, jaxjob(run_policy={"suspend": True}))
    js = c.wait_jobset()
    check(js["spec"]["suspend"] is True, js["spec"])
    c.wait_conds({"Created": ("True", "JAXJobCreated"),
                  "Suspended": ("True", "JAXJobSuspended")})
    c.wait_event("JAXJobSuspended", "Normal", f"JAXJob {c.name} is suspended.")
    check("startTime" not in c.status(), c.status())
    c.patch_obj({"spec": {"runPolicy": {"suspend": False}}})
    poll(lambda: c.jobset()["spec"].get("suspend") is False, "the JobSet resumed")
    c.wait_conds({"Created": ("True", "JAXJobCreated"),
                  "Suspended": ("False", "JAXJobResumed")})
    c.wait_event("JAXJobResumed", "Normal", f"JAXJob {c.name} is resumed.")
    check(c.status().get("startTime"), c.status())
    job = c.wait_jobs(1)[0]["metadata"]["name"]
    c.job_status(job, active=2, ready=2)
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("True", "JAXJobRunning"),
                  "Suspended": ("False", "JAXJobResumed")})
    # Suspended while running: Running False (JAXJobSuspended), active 0.
    c.patch_obj({"spec": {"runPolicy": {"suspend": True}}})
    poll(lambda: c.jobset()["spec"].get("suspend") is True, "the JobSet suspended")
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Running": ("False", "JAXJobSuspended"),
                  "Suspended": ("True", "JAXJobSuspended")})
    c.wait_replicas(active=0)


def clean_pods_case(env, policy):
    rp = {} if policy is None else {"cleanPodPolicy": policy}
    c = new_case(env, jaxjob(replicas=3, run_policy=rp))
    c.wait_jobset()
    job = c.wait_jobs(1)[0]
    for name, phase in (("p-running", "Running"), ("p-pending", "Pending"),
                        ("p-done", "Succeeded")):
        c.pod(name, phase, job)
    c.complete(job)
    c.wait_conds({"Created": ("True", "JAXJobCreated"),
                  "Succeeded": ("True", "JAXJobSucceeded")})
    return c


@test
def jaxjob_clean_pod_policy_none(env):
    c = clean_pods_case(env, None)
    steady(lambda: c.live_pods() == ["p-done", "p-pending", "p-running"],
           "cleanPodPolicy None (the default) keeps every pod", 1.0)


@test
def jaxjob_clean_pod_policy_running(env):
    c = clean_pods_case(env, "Running")
    poll(lambda: c.live_pods() == ["p-done"] or (False, c.live_pods()),
         "the Running and Pending pods deleted")
    steady(lambda: c.live_pods() == ["p-done"], "the Succeeded pod kept")


@test
def jaxjob_clean_pod_policy_all(env):
    c = clean_pods_case(env, "All")
    poll(lambda: c.live_pods() == [] or (False, c.live_pods()), "every pod deleted")


@test
def jaxjob_ttl_after_finished(env):
    c = new_case(env, jaxjob(replicas=1, run_policy={"ttlSecondsAfterFinished": 3}))
    c.wait_jobset()
    c.complete(c.wait_jobs(1)[0])
    c.wait_conds({"Created": ("True", "JAXJobCreated"),
                  "Succeeded": ("True", "JAXJobSucceeded")})
    c.gone("self")
    if c.s.has_gc:
        c.gone("jobset")


@test
def jaxjob_that_cannot_be_converted_fails_with_an_event(env):
    bad = jaxjob(containers=[{"name": "main", "image": "python:3.12"}])
    c = new_case(env, bad)
    c.wait_conds({"Created": ("True", "JAXJobCreated"), "Failed": ("True", "JAXJobFailed")})
    ev = c.wait_event("JAXJobFailed", "Warning")
    want = "spec.jaxReplicaSpecs[Worker].template.spec.containers"
    check(want in ev["message"] and "jax" in ev["message"], ev)
    check(want in [x for x in c.status()["conditions"] if x["type"] == "Failed"][0]["message"],
          c.status())
    steady(lambda: c.jobset() is None, "no JobSet created")
    # A reserved variable: refused too, naming the variable's path.
    c2 = new_case(env, jaxjob(name="jj2", containers=[
        {"name": "jax", "image": "python:3.12", "env": [{"name": "PROCESS_ID", "value": "3"}]}]))
    ev = c2.wait_event("JAXJobFailed", "Warning")
    check("spec.jaxReplicaSpecs[Worker].template.spec.containers[0].env[0]" in ev["message"], ev)
    steady(lambda: c2.jobset() is None, "no JobSet created")
    env.controller.check_alive()
    # The controller goes on with valid ones.
    c3 = new_case(env, jaxjob(name="jj3"))
    c3.wait_jobset()


# ====================================================================== TrainJob


def trainjob(name="tj", runtime="jax-distributed", kind=None, num_nodes=2, **spec):
    ref = {"name": runtime}
    if kind:
        ref["kind"] = kind
    s = {"runtimeRef": ref, "trainer": {"numNodes": num_nodes, "image": "python:3.12",
                                        "command": ["python", "train.py"]}}
    s.update(spec)
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": name}, "spec": s}


class TrainCase(KindCase):
    api, plural = TR_API, "trainjobs"

    def conds(self):
        return {c["type"]: (c["status"], c.get("reason")) for c in
                self.status().get("conditions") or []}

    def cond(self, ctype):
        return [x for x in self.status().get("conditions") or [] if x["type"] == ctype][0]

    def wait_jobs_status(self, **want):
        def ok():
            got = self.status().get("jobsStatus")
            full = [{"name": "node", **{k: want.get(k, 0) for k in
                                        ("ready", "succeeded", "failed", "active",
                                         "suspended")}}]
            return got if got == full else (False, got)
        return poll(ok, f"jobsStatus {want}")


def ensure_runtime(env):
    rt = decode(RUNTIME_FILE)[0]
    r = env.server.post(f"{TR_API}/clustertrainingruntimes", rt)
    check(r.status in (201, 409), r)


def runtime(name, ns, ml_policy=None, **spec):
    body = decode(RUNTIME_FILE)[0]
    body["kind"] = "TrainingRuntime"
    body["metadata"] = {"name": name, "namespace": ns,
                        "labels": {"trainer.kubeflow.org/framework": "jax"}}
    if ml_policy is not None:
        body["spec"]["mlPolicy"] = ml_policy
    body["spec"].update(spec)
    return body


@test
def trainjob_runs_as_its_jobset(env):
    ensure_runtime(env)
    c = TrainCase(env, trainjob())
    js = c.wait_jobset()
    refs = js["metadata"]["ownerReferences"]
    check(len(refs) == 1 and refs[0]["kind"] == "TrainJob" and refs[0]["uid"] == c.uid and
          refs[0]["controller"] is True, refs)
    rj = js["spec"]["replicatedJobs"]
    check(len(rj) == 1 and rj[0]["name"] == "node" and rj[0]["replicas"] == 1, rj)
    jspec = rj[0]["template"]["spec"]
    check(jspec["parallelism"] == 2 and jspec["completions"] == 2, jspec)
    node = jspec["template"]["spec"]["containers"][0]
    check(node["name"] == "node" and node["image"] == "python:3.12" and
          node["command"] == ["python", "train.py"], node)
    check({"containerPort": 29500} in [{k: v for k, v in p.items() if k == "containerPort"}
                                       for p in node.get("ports", [])], node)
    job = c.wait_jobs(1)[0]
    envs = {e["name"]: e for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    check(envs["JAX_COORDINATOR_ADDRESS"]["value"] == f"{c.name}-node-0-0.{c.name}:29500" and
          envs["JAX_NUM_PROCESSES"]["value"] == "2", envs)
    c.wait_jobs_status()
    check(not c.status().get("conditions"), c.status())
    jname = job["metadata"]["name"]
    c.ready(jname)
    c.wait_jobs_status(ready=1, active=1)
    c.complete(jname)
    c.wait_conds({"Complete": ("True", "AllJobsCompleted")})
    check(c.cond("Complete")["message"] == "jobset completed successfully", c.status())
    c.wait_jobs_status(succeeded=1)
    expect(c.s.delete(c.path("trainjobs", c.name, api=TR_API)), 200, "delete TrainJob")
    if c.s.has_gc:
        c.gone("jobset")


@test
def trainjob_runtime_patches_shape_its_jobset(env):
    # Trainer v2.3 (pkg/runtime/core/trainingruntime.go mergeRuntimePatches, newRuntimeInfo):
    # each patch is a strategic merge patch onto the runtime's JobSet; its labels go on the
    # JobSet.  The TrainJob runs (no NotImplementedByJaxset) and its Jobs carry the patches.
    ensure_runtime(env)
    tol = [{"key": "example.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    pod_patch = {"metadata": {"labels": {"cache": "warm"}},
                 "spec": {"nodeSelector": {"node.kubernetes.io/instance-type": "p5.48xlarge"},
                          "tolerations": tol, "serviceAccountName": "trainer-sa",
                          "containers": [{"name": "node", "volumeMounts": [
                              {"name": "data", "mountPath": "/data"}]}],
                          "volumes": [{"name": "data", "emptyDir": {}}]}}
    patches = [{"manager": "kueue.x-k8s.io/manager", "trainingRuntimeSpec": {"template": {
        "metadata": {"labels": {"team": "data"}},
        "spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {
            "template": pod_patch}}}]}}}},
               {"manager": "example.com/second", "trainingRuntimeSpec": {"template": {"spec": {
                   "replicatedJobs": [{"name": "node", "template": {"spec": {"template": {
                       "spec": {"nodeSelector": {"disk": "ssd"}}}}}}]}}}}]
    c = TrainCase(env, trainjob(runtimePatches=patches))
    js = c.wait_jobset()
    check(js["metadata"].get("labels", {}).get("team") == "data", js["metadata"])
    job = c.wait_jobs(1)[0]
    tmpl = job["spec"]["template"]
    pspec = tmpl["spec"]
    check(pspec.get("nodeSelector") == {"node.kubernetes.io/instance-type": "p5.48xlarge",
                                        "disk": "ssd"}, pspec)
    check(pspec.get("tolerations") == tol and pspec.get("serviceAccountName") == "trainer-sa",
          pspec)
    check(pspec.get("volumes") == [{"name": "data", "emptyDir": {}}], pspec)
    node = pspec["containers"][0]
    check(node["image"] == "python:3.12" and
          {"name": "data", "mountPath": "/data"} in node.get("volumeMounts", []), node)
    check({e["name"] for e in node["env"]} >= {"JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES"},
          node)
    check(tmpl["metadata"]["labels"].get("cache") == "warm", tmpl["metadata"])
    c.wait_jobs_status()
    check(not c.status().get("conditions"), c.status())


@test
def trainjob_multislice_runs_numnodes_across_its_jobs(env):
    """A trainer job of 2 replicas (multi-slice; a deliberate difference, README): numNodes 4
    is the total, 2 Jobs of 2 pods, JAX_NUM_PROCESSES 4, the second Job's pods numbered from 2
    (the pod webhook's offset) without the JAX plugin's completion-index JAX_PROCESS_ID."""
    def multislice_case(name, num_nodes):
        c = TrainCase(env, trainjob(name=name, runtime="multislice", kind="TrainingRuntime",
                                    num_nodes=num_nodes), create=False)
        rt = runtime("multislice", c.ns)
        rt["spec"]["template"]["spec"]["replicatedJobs"][0]["replicas"] = 2
        expect(env.server.post(f"{TR_API}/namespaces/{c.ns}/trainingruntimes", rt), 201, "rt")
        c.create()
        return c
    c = multislice_case("tj", 4)
    rj = c.wait_jobset()["spec"]["replicatedJobs"]
    check(len(rj) == 1 and rj[0]["replicas"] == 2 and
          rj[0]["template"]["spec"]["parallelism"] == 2 and
          rj[0]["template"]["spec"]["completions"] == 2, rj)
    jobs = sorted(c.wait_jobs(2), key=lambda j: j["metadata"]["name"])
    for i, job in enumerate(jobs):
        t = job["spec"]["template"]
        check(t["metadata"]["annotations"]["jaxset.dev/jax-process-id-offset"] == str(2 * i),
              t["metadata"])
        envs = {e["name"]: e for e in t["spec"]["containers"][0]["env"]}
        check(envs["JAX_NUM_PROCESSES"]["value"] == "4" and
              envs["JAX_COORDINATOR_ADDRESS"]["value"] == f"{c.name}-node-0-0.{c.name}:29500",
              envs)
        check(("JAX_PROCESS_ID" in envs) == (i == 0), f"job {i}: {envs}")
    # numNodes that the replicas do not divide: the TrainJob fails, nothing is created
    bad = multislice_case("tj-odd", 3)
    bad.wait_conds({"Failed": ("True", "TrainJobResourcesCreationFailed")})
    check("spec.trainer.numNodes" in bad.cond("Failed")["message"] and
          "must be a multiple of" in bad.cond("Failed")["message"], bad.status())
    steady(lambda: bad.jobset() is None, "no JobSet for tj-odd", 0.3)


@test
def trainjob_fails_with_its_jobset(env):
    ensure_runtime(env)
    c = TrainCase(env, trainjob(num_nodes=1))
    c.wait_jobset()
    c.fail(c.wait_jobs(1)[0])
    c.wait_conds({"Failed": ("True", "FailedJobs")})
    c.wait_jobs_status(failed=1)
    steady(lambda: c.conds() == {"Failed": ("True", "FailedJobs")}, "Failed stays")


@test
def trainjob_suspend_and_resume(env):
    ensure_runtime(env)
    c = TrainCase(env, trainjob(suspend=True))
    js = c.wait_jobset()
    check(js["spec"]["suspend"] is True, js["spec"])
    c.wait_conds({"Suspended": ("True", "Suspended")})
    check(c.cond("Suspended")["message"] == "TrainJob is suspended", c.status())
    c.patch_obj({"spec": {"suspend": False}})
    poll(lambda: c.jobset()["spec"].get("suspend") is False, "the JobSet resumed")
    c.wait_conds({"Suspended": ("False", "Resumed")})
    check(c.cond("Suspended")["message"] == "TrainJob is resumed", c.status())
    c.wait_jobs(1)


# The runtime snapshot (Trainer v2.3, KEP-2599; kubeflow/trainer test/integration/controller
# trainjob_controller_test.go, "Integration Tests for Runtime Snapshots", and
# pkg/runtime/core/snapshot_test.go TestGetRuntimeSnapshot).

def snapshot(c):
    r = c.s.get(c.path("configmaps", f"{c.name}-runtime-snapshot", api="/api/v1"))
    return r.json if r.status == 200 else None


def check_snapshot(c, kind, runtime_name):
    cm = poll(lambda: snapshot(c), "the runtime snapshot")
    refs = cm["metadata"].get("ownerReferences") or []
    check(len(refs) == 1 and refs[0]["apiVersion"] == "trainer.kubeflow.org/v1alpha1" and
          refs[0]["kind"] == "TrainJob" and refs[0]["name"] == c.name and
          refs[0]["uid"] == c.uid and refs[0]["controller"] is True and
          refs[0]["blockOwnerDeletion"] is True, refs)
    text = (cm.get("data") or {}).get("runtime", "")
    check(f"kind: {kind}" in text and f"name: {runtime_name}" in text, text)
    return cm


@test
def trainjob_snapshot_of_a_training_runtime(env):
    c = TrainCase(env, trainjob(runtime="alpha", kind="TrainingRuntime"), create=False)
    expect(env.server.post(f"{TR_API}/namespaces/{c.ns}/trainingruntimes",
                           runtime("alpha", c.ns)), 201, "TrainingRuntime")
    c.create()
    check_snapshot(c, "TrainingRuntime", "alpha")


@test
def trainjob_snapshot_of_a_cluster_training_runtime(env):
    ensure_runtime(env)
    c = TrainCase(env, trainjob())
    check_snapshot(c, "ClusterTrainingRuntime", "jax-distributed")


@test
def trainjob_builds_from_its_snapshot_not_the_runtime(env):
    """"Should use the runtime snapshot during reconciliation rather than the current runtime
    contents": a label of the runtime's template changed while the TrainJob is suspended does
    not reach its JobSet on resume."""
    c = TrainCase(env, trainjob(runtime="marked", kind="TrainingRuntime", suspend=True),
                  create=False)
    rt = runtime("marked", c.ns)
    rt["spec"]["template"]["metadata"] = {"labels": {"snapshot-test-marker": "snapshot-v1"}}
    expect(env.server.post(f"{TR_API}/namespaces/{c.ns}/trainingruntimes", rt), 201, "rt")
    c.create()
    check("snapshot-v1" in check_snapshot(c, "TrainingRuntime", "marked")["data"]["runtime"],
          "marker")
    js = c.wait_jobset()
    check(js["metadata"]["labels"].get("snapshot-test-marker") == "snapshot-v1", js["metadata"])
    path = f"{TR_API}/namespaces/{c.ns}/trainingruntimes/marked"
    cur = expect(env.server.get(path), 200, "runtime")
    cur["spec"]["template"]["metadata"]["labels"]["snapshot-test-marker"] = "snapshot-v2"
    expect(env.server.put(path, cur), 200, "update runtime")
    c.patch_obj({"spec": {"suspend": False}})
    poll(lambda: c.jobset()["spec"].get("suspend") is False, "the JobSet resumed")
    js = c.jobset()
    check(js["metadata"]["labels"].get("snapshot-test-marker") == "snapshot-v1", js["metadata"])
    text = snapshot(c)["data"]["runtime"]
    check("snapshot-v1" in text and "snapshot-v2" not in text, text)
    expect(env.server.delete(path), 200, "delete the runtime")
    c.patch_obj({"metadata": {"labels": {"poke": "1"}}})  # a pass with the runtime gone
    steady(lambda: "Failed" not in c.conds(), "no failure without the runtime", 1.0)


@test
def trainjob_snapshot_owned_by_another_object_fails(env):
    """TestGetRuntimeSnapshot's "returns error when ... owned by another object": a ConfigMap
    of that name that is not the TrainJob's fails it, with upstream's message."""
    ensure_runtime(env)
    c = TrainCase(env, trainjob(name="squat"), create=False)
    cm = {"apiVersion": "v1", "kind": "ConfigMap",
          "metadata": {"name": "squat-runtime-snapshot"}, "data": {"runtime": "kind: x"}}
    expect(env.server.post(c.path("configmaps", api="/api/v1"), cm), 201, "ConfigMap")
    c.create()
    c.wait_conds({"Failed": ("True", "TrainJobResourcesCreationFailed")})
    check("a snapshot configmap exists but is owned by another object" in
          c.cond("Failed")["message"], c.cond("Failed"))
    check(c.jobset() is None, "a JobSet was created")


@test
def trainjob_active_deadline(env):
    ensure_runtime(env)
    c = TrainCase(env, trainjob(activeDeadlineSeconds=2))
    c.wait_jobset()
    c.wait_conds({"Failed": ("True", "DeadlineExceeded")})
    check(c.cond("Failed")["message"] == "TrainJob exceeded its active deadline", c.status())
    c.gone("jobset")
    steady(lambda: c.jobset() is None and "Failed" in c.conds(),
           "no new JobSet, Failed stays")


@test
def trainjob_runtime_resolution_errors(env):
    # A missing TrainingRuntime: Failed and an event; once it exists, the job goes on.
    c = TrainCase(env, trainjob(runtime="mine", kind="TrainingRuntime"))
    c.wait_conds({"Failed": ("True", "TrainingRuntimeNotFound")})
    ev = c.wait_event("TrainingRuntimeNotFound", "Warning")
    check('trainingruntimes.trainer.kubeflow.org "mine" not found' in ev["message"], ev)
    steady(lambda: c.jobset() is None, "no JobSet without a runtime")
    expect(c.s.post(c.path("trainingruntimes", api=TR_API), runtime("mine", c.ns)), 201,
           "runtime")
    c.wait_jobset()
    c.wait_conds({})
    # A runtimeRef of a kind jaxset does not run.
    c2 = TrainCase(env, trainjob(name="tj2", kind="MyRuntime"))
    c2.wait_conds({"Failed": ("True", "TrainingRuntimeNotSupported")})
    check(c2.cond("Failed")["message"] == "unsupported runtime: "
          "MyRuntime.trainer.kubeflow.org", c2.status())
    c2.wait_event("TrainingRuntimeNotSupported", "Warning")
    steady(lambda: c2.jobset() is None, "no JobSet")


@test
def trainjob_unimplemented_policies_fail(env):
    ensure_runtime(env)
    # A torch runtime: the JAX ML policy is the only one jaxset runs.
    c2 = TrainCase(env, trainjob(name="tj-torch", runtime="torch", kind="TrainingRuntime"),
                   create=False)
    torch = runtime("torch", c2.ns, ml_policy={"numNodes": 1, "torch": {}})
    expect(c2.s.post(c2.path("trainingruntimes", api=TR_API), torch), 201, "torch runtime")
    c2.create()
    c2.wait_conds({"Failed": ("True", "TrainJobResourcesCreationFailed")})
    check("spec.mlPolicy" in c2.cond("Failed")["message"] and
          "torch" in c2.cond("Failed")["message"], c2.status())
    c2.wait_event("TrainJobResourcesCreationFailed", "Warning")
    steady(lambda: c2.jobset() is None, "no JobSet", 0.3)
    env.controller.check_alive()


def init_runtime(name, ns, **spec):
    """A JAX TrainingRuntime laid out as Trainer's torchtune runtimes: dataset-initializer and
    model-initializer jobs writing to the "initializer" volume, the trainer job "node" after
    both are Complete."""
    def rj(rname, step, **extra):
        return {"name": rname, **extra, "template": {
            "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": step}},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{
                "name": rname, "image": "busybox",
                "env": [{"name": "FROM_RUNTIME", "value": "kept"}],
                "resources": {"requests": {"cpu": "250m", "memory": "512Mi"}},
                "volumeMounts": [{"name": "initializer", "mountPath": "/workspace"}]}],
                "volumes": [{"name": "initializer", "emptyDir": {}}]}}}}}
    node = rj("node", "trainer", dependsOn=[
        {"name": "dataset-initializer", "status": "Complete"},
        {"name": "model-initializer", "status": "Complete"}])
    return runtime(name, ns, template={"spec": {"replicatedJobs": [
        rj("dataset-initializer", "dataset-initializer"),
        rj("model-initializer", "model-initializer"), node]}}, **spec)


def post_runtime(c, body):
    expect(c.s.post(c.path("trainingruntimes", api=TR_API), body), 201, "runtime")


@test
def trainjob_initializers_run_before_the_trainer(env):
    # Trainer v2.3 (plugins/jobset/builder.go Initializer): each initializer job 1 replica, its
    # container takes STORAGE_URI, the initializer's env and its secretRef; the trainer job
    # waits for both (the runtime's dependsOn).
    c = TrainCase(env, trainjob(name="tj-init", runtime="init", kind="TrainingRuntime",
                                initializer={
                                    "dataset": {"storageUri": "hf://tatsu-lab/alpaca",
                                                "env": [{"name": "SPLIT", "value": "train"},
                                                        {"name": "FROM_RUNTIME",
                                                         "value": "overridden"}],
                                                "secretRef": {"name": "hf-token"}},
                                    "model": {"storageUri": "hf://meta-llama/Llama-3.2-1B"}}),
                  create=False)
    post_runtime(c, init_runtime("init", c.ns))
    c.create()
    js = c.wait_jobset()
    rjs = {r["name"]: r for r in js["spec"]["replicatedJobs"]}
    check(list(rjs) == ["dataset-initializer", "model-initializer", "node"], list(rjs))

    def ctr(name):
        return rjs[name]["template"]["spec"]["template"]["spec"]["containers"][0]
    check(ctr("dataset-initializer")["env"] == [
        {"name": "FROM_RUNTIME", "value": "overridden"},
        {"name": "STORAGE_URI", "value": "hf://tatsu-lab/alpaca"},
        {"name": "SPLIT", "value": "train"}], ctr("dataset-initializer"))
    check(ctr("dataset-initializer").get("envFrom") == [{"secretRef": {"name": "hf-token"}}],
          ctr("dataset-initializer"))
    check(ctr("model-initializer")["env"] == [
        {"name": "FROM_RUNTIME", "value": "kept"},
        {"name": "STORAGE_URI", "value": "hf://meta-llama/Llama-3.2-1B"}],
        ctr("model-initializer"))
    check(all(r["replicas"] == 1 for r in rjs.values()), rjs)
    inits = c.wait_jobs(2)
    check(sorted(j["metadata"]["labels"][L_RJ] for j in inits) ==
          ["dataset-initializer", "model-initializer"], inits)
    c.complete(inits[0])
    steady(lambda: len(c.jobs()) == 2, "the trainer waits for both initializers", 0.5)
    c.complete(inits[1])
    node = c.wait_jobs(1, rj="node")[0]
    check(node["spec"]["parallelism"] == 2, node["spec"])
    envs = {e["name"]: e for e in node["spec"]["template"]["spec"]["containers"][0]["env"]}
    check(envs["JAX_NUM_PROCESSES"]["value"] == "2" and "STORAGE_URI" not in envs, envs)
    c.wait_conds({})


POD_GROUP_CRDS = {
    "coscheduling": ("scheduling.x-k8s.io", "v1alpha1"),
    "volcano": ("scheduling.volcano.sh", "v1beta1"),
}


def pod_group_crd(plugin):
    """A minimal CRD for the scheduler plugin's PodGroup (the test's own, not upstream's)."""
    group, version = POD_GROUP_CRDS[plugin]
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": f"podgroups.{group}"},
            "spec": {"group": group, "scope": "Namespaced",
                     "names": {"plural": "podgroups", "singular": "podgroup",
                               "kind": "PodGroup", "listKind": "PodGroupList"},
                     "versions": [{"name": version, "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": {
                                       "type": "object",
                                       "x-kubernetes-preserve-unknown-fields": True}}}]}}


def drop_pod_group_crd(env, plugin):
    """Deletes the plugin's PodGroup CRD and waits until it is gone (a real API server
    finalizes a CRD first, and a new one of that name is refused until then)."""
    name = f"{CRDS}/podgroups.{POD_GROUP_CRDS[plugin][0]}"
    env.server.delete(name)
    wait_for(lambda: env.server.get(name).status == 404, 60, f"the {plugin} CRD gone")


def pod_group_case(env, plugin, policy):
    c = TrainCase(env, trainjob(name=f"tj-{plugin}", runtime=plugin, kind="TrainingRuntime"),
                  create=False)
    rt = init_runtime(plugin, c.ns, podGroupPolicy={plugin: policy})
    rt["spec"]["template"]["metadata"] = {"annotations": {
        "scheduling.volcano.sh/queue-name": "q1"}}
    post_runtime(c, rt)
    c.create()
    return c


def get_json(s, path):
    r = s.get(path)
    return r.json if r.status == 200 else None


@test
def trainjob_pod_groups_with_and_without_their_crds(env):
    # Trainer v2.3 plugins/coscheduling and plugins/volcano: a PodGroup named as the TrainJob,
    # owned by it, minMember the pods of every job (1 + 1 + numNodes), minResources their
    # requests; the pods labelled (coscheduling) or annotated (volcano) with its name.  Without
    # the CRD upstream's apply fails ("no matches for kind"): a Failed condition and an Event
    # name the missing CRD, nothing is created; once the CRD is there the job goes on.
    cases = {"coscheduling": pod_group_case(env, "coscheduling", {}),
             "volcano": pod_group_case(env, "volcano", {"networkTopology": {
                 "mode": "hard", "highestTierAllowed": 1}})}
    for plugin, c in cases.items():
        group, version = POD_GROUP_CRDS[plugin]
        c.wait_conds({"Failed": ("True", "TrainJobResourcesCreationFailed")})
        msg = c.cond("Failed")["message"]
        check(f'no matches for kind "PodGroup" in version "{group}/{version}"' in msg and
              f"podgroups.{group}" in msg and plugin in msg, msg)
        c.wait_event("TrainJobResourcesCreationFailed", "Warning")
        steady(lambda c=c: c.jobset() is None, "no JobSet without the PodGroup CRD", 0.3)
    try:
        for plugin in cases:
            group, version = POD_GROUP_CRDS[plugin]
            expect(env.server.post(CRDS, pod_group_crd(plugin)), 201, f"{plugin} CRD")
            wait_for(lambda g=group, v=version: env.server.get(
                f"/apis/{g}/{v}/podgroups").status == 200, 30, f"{plugin} PodGroups served")
        for plugin, c in cases.items():
            group, version = POD_GROUP_CRDS[plugin]
            js = c.wait_jobset()
            c.wait_conds({})
            pg = poll(lambda c=c, g=group, v=version: get_json(
                c.s, f"/apis/{g}/{v}/namespaces/{c.ns}/podgroups/{c.name}"),
                f"the {plugin} PodGroup")
            refs = pg["metadata"].get("ownerReferences") or []
            check(len(refs) == 1 and refs[0]["kind"] == "TrainJob" and
                  refs[0]["uid"] == c.uid and refs[0]["controller"] is True, refs)
            spec = pg["spec"]
            check(spec["minMember"] == 4 and
                  spec["minResources"] == {"cpu": "1", "memory": "2Gi"}, spec)
            if plugin == "coscheduling":
                check(spec["scheduleTimeoutSeconds"] == 60, spec)
            else:
                check(spec["queue"] == "q1" and spec["networkTopology"] == {
                    "mode": "hard", "highestTierAllowed": 1}, spec)
            for r in js["spec"]["replicatedJobs"]:
                m = r["template"]["spec"]["template"].get("metadata") or {}
                got = ((m.get("labels") or {}).get("scheduling.x-k8s.io/pod-group")
                       if plugin == "coscheduling" else
                       (m.get("annotations") or {}).get("scheduling.k8s.io/group-name"))
                check(got == c.name, m)
    finally:
        for plugin in cases:
            drop_pod_group_crd(env, plugin)


@test
def trainjob_pod_group_deleted_while_running_is_created_again(env):
    # Trainer v2.3 plugins/coscheduling: Build creates a missing PodGroup on every reconcile,
    # and the controller watches the PodGroups TrainJobs own when the CRD is installed at
    # start (ReconcilerBuilders): so the controller is restarted once the CRD is served.
    group, version = POD_GROUP_CRDS["coscheduling"]
    expect(env.server.post(CRDS, pod_group_crd("coscheduling")), 201, "coscheduling CRD")
    try:
        wait_for(lambda: env.server.get(f"/apis/{group}/{version}/podgroups").status == 200,
                 30, "PodGroups served")
        env.controller.stop()
        env.controller = env.start_controller()
        c = pod_group_case(env, "coscheduling", {})
        c.wait_jobset()
        path = f"/apis/{group}/{version}/namespaces/{c.ns}/podgroups/{c.name}"
        first = poll(lambda: get_json(c.s, path), "the PodGroup")
        poll(lambda: not c.wait_jobs(2)[0]["spec"].get("suspend"), "its initializers running")
        expect(c.s.delete(path), 200, "PodGroup deleted")
        again = poll(lambda: (get_json(c.s, path) or {}).get("metadata", {}).get("uid") not in
                     (None, first["metadata"]["uid"]) and get_json(c.s, path),
                     "the PodGroup created again")
        refs = again["metadata"].get("ownerReferences") or []
        check(len(refs) == 1 and refs[0]["kind"] == "TrainJob" and refs[0]["uid"] == c.uid and
              refs[0]["controller"] is True, refs)
        check(again["spec"] == first["spec"], (again["spec"], first["spec"]))
        c.wait_conds({})
    finally:
        drop_pod_group_crd(env, "coscheduling")
        env.controller.stop()
        env.controller = env.start_controller()


def node_patch(template):
    """runtimePatches (one, Kueue's) patching the "node" job's pod template."""
    return [{"manager": "kueue.x-k8s.io/manager", "trainingRuntimeSpec": {"template": {
        "spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {
            "template": template}}}]}}}}]


@test
def trainjob_suspended_runtime_patches_rebuild_its_jobset(env):
    # Trainer v2.3 plugins/jobset Build: an existing JobSet is applied again while the
    # TrainJob (or the JobSet) is suspended, so runtimePatches changed then are in the Jobs of
    # the resumed job; never while it runs.
    ensure_runtime(env)

    def patch(zone):
        return node_patch({"metadata": {"labels": {"zone": zone}},
                           "spec": {"nodeSelector": {"zone": zone}}})

    def pod_template(js):
        return js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    c = TrainCase(env, trainjob(suspend=True, runtimePatches=patch("a")))
    js = c.wait_jobset()
    check(pod_template(js)["spec"]["nodeSelector"] == {"zone": "a"}, pod_template(js))
    c.patch_obj({"spec": {"runtimePatches": patch("b")}})
    poll(lambda: pod_template(c.jobset())["spec"].get("nodeSelector") == {"zone": "b"} or
         (False, pod_template(c.jobset())), "the suspended JobSet rebuilt")
    check(pod_template(c.jobset())["metadata"]["labels"].get("zone") == "b",
          pod_template(c.jobset()))
    c.wait_conds({"Suspended": ("True", "Suspended")})  # Resumed is written over it only
    c.patch_obj({"spec": {"suspend": False}})
    c.wait_conds({"Suspended": ("False", "Resumed")})

    def resumed():
        job = c.wait_jobs(1)[0]
        return (not job["spec"].get("suspend") and
                job["spec"]["template"]["spec"].get("nodeSelector") == {"zone": "b"}) or \
            (False, job["spec"])
    poll(resumed, "its Job resumed with the new nodeSelector")
    c.patch_obj({"spec": {"runtimePatches": patch("c")}})  # running: upstream's Build skips it
    steady(lambda: pod_template(c.jobset())["spec"].get("nodeSelector") == {"zone": "b"},
           "a running JobSet is not rebuilt", 0.5)


@test
def trainjob_suspended_runtime_patch_removals_reach_its_jobset(env):
    # Trainer applies its JobSet by server-side apply with its field manager, so a key a changed
    # runtimePatch no longer sets is removed; here the build hash annotation makes the rebuild
    # replace the spec (a covering spec alone would keep the old key).
    ensure_runtime(env)

    def patch(selector):
        return node_patch({"spec": {"nodeSelector": selector}})

    def selector(obj):
        return (obj["spec"]["template"]["spec"] if "template" in obj["spec"] else
                obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
                ).get("nodeSelector")
    c = TrainCase(env, trainjob(suspend=True, runtimePatches=patch({"zone": "a", "disk": "ssd"})))
    js = c.wait_jobset()
    check(selector(js) == {"zone": "a", "disk": "ssd"}, selector(js))
    c.patch_obj({"spec": {"runtimePatches": patch({"zone": "a"})}})
    poll(lambda: selector(c.jobset()) == {"zone": "a"} or (False, selector(c.jobset())),
         "the removed nodeSelector key gone from the suspended JobSet")
    # resumed only once seen suspended: Trainer writes Resumed only over Suspended=True
    c.wait_conds({"Suspended": ("True", "Suspended")})
    c.patch_obj({"spec": {"suspend": False}})
    c.wait_conds({"Suspended": ("False", "Resumed")})

    # The Job made while suspended keeps the key: JobSet's resumeJob merges the template's
    # nodeSelector into the Job's (kubernetes-sigs/jobset jobset_controller.go, MergeMaps).
    poll(lambda: not c.wait_jobs(1)[0]["spec"].get("suspend"), "its Job resumed")
    steady(lambda: selector(c.jobset()) == {"zone": "a"}, "the JobSet keeps the new spec", 0.5)


@test
def trainjob_managed_by_another_controller_is_left_alone(env):
    ensure_runtime(env)
    c = TrainCase(env, trainjob(managedBy="kueue.x-k8s.io/multikueue"))
    steady(lambda: c.jobset() is None and not c.status(), "left alone", 1.0)


@test
def jaxjob_left_alone_by_controllers_jobset(env):
    """--controllers=jobset: JAXJobs are left to another operator; JobSets still run."""
    env.controller.stop()
    env.controller = env.start_controller("--controllers=jobset")
    try:
        c = new_case(env, jaxjob())
        steady(lambda: c.jobset() is None and not c.status(), "the JAXJob left alone", 1.0)
        other = Case(env, {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                           "metadata": {"name": "plain"}, "spec": {"replicatedJobs": [
                               {"name": "w", "template": {"spec": {"template": {"spec": {
                                   "restartPolicy": "Never", "containers": [
                                       {"name": "c", "image": "busybox"}]}}}}}]}})
        other.wait_jobs(1)
    finally:
        env.controller.stop()
        env.controller = env.start_controller()
    c.wait_jobset()


@test
def kinds_without_crds_are_skipped(env):
    """A server without the Kubeflow CRDs: one line says so, JobSets still run."""
    s = Server()
    ctl = None
    try:
        crd = [x for x in crds() if x["metadata"]["name"] == "jobsets.jobset.x-k8s.io"][0]
        expect(s.post(CRDS, crd), 201, "JobSet CRD")
        wait_for(lambda: s.get(f"{JS_API}/jobsets").status == 200, 10, "JobSets served")
        ctl = Controller(s, tag="nocrd")
        poll(lambda: "the JAXJob controller is off" in ctl.log() and
             "the TrainJob controller is off" in ctl.log() or (False, ctl.log()[-800:]),
             "the log lines")
        expect(s.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                             "metadata": {"name": "nocrd"}}), 201, "ns")
        js = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
              "metadata": {"name": "plain"}, "spec": {"replicatedJobs": [
                  {"name": "w", "template": {"spec": {"template": {"spec": {
                      "restartPolicy": "Never", "containers": [
                          {"name": "c", "image": "busybox"}]}}}}}]}}
        expect(s.post(f"{JS_API}/namespaces/nocrd/jobsets", js), 201, "JobSet")
        poll(lambda: s.get("/apis/batch/v1/namespaces/nocrd/jobs").json["items"],
             "its Job")
        ctl.check_alive()
        ctl.stop()
        ctl = None
    finally:
        if ctl is not None:
            ctl.kill()
        s.stop()


def setup():
    socket.setdefaulttimeout(30)
    return Env()


def before_each(env, name):
    env.cases = []


def on_failure(env, name):
    names = [c.ns for c in env.cases]
    for ctl in env.controllers[-2:]:
        lines = [ln for ln in ctl.log().splitlines()
                 if any(n in ln for n in names) or "\tERROR\t" in ln]
        print(f"--- controller log ({ctl.log_path}), {len(lines)} lines:")
        print("\n".join(lines[-80:]))


def teardown(env):
    keep = os.environ.get("JAXSET_KEEP_LOGS")
    for ctl in env.controllers:
        if ctl.alive():
            ctl.kill()
        if keep:
            print(f"controller log kept: {ctl.log_path}")
        else:
            ctl.cleanup()
    env.server.stop()


if __name__ == "__main__":
    main(setup, teardown, on_failure, before_each)
