"""Helpers of the controller's scenario tests (test_controller.py), envtest-style as
kubernetes-sigs/jobset's integration suite (test/integration/controller): the API server (the
project's test server, or a real kube-apiserver when KUBEBUILDER_ASSETS names one), one
`jaxset controller` process, and per scenario a namespace in which the test creates a JobSet
and plays the Job controller and the kubelet by writing Job status and creating pods."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.parse

from kubetest import SRC, Server, check, expect, wait_for

BIN = os.environ.get("JAXSET_BIN") or os.path.join(SRC, "build", "jaxset")
CRD_FILE = os.path.join(SRC, "config", "crd", "jobset.x-k8s.io_jobsets.yaml")
JS_API = "/apis/jobset.x-k8s.io/v1alpha2"
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
JOBSET_CRD = "jobsets.jobset.x-k8s.io"

L_JOBSET = "jobset.sigs.k8s.io/jobset-name"
L_RJ = "jobset.sigs.k8s.io/replicatedjob-name"
L_ATTEMPT = "jobset.sigs.k8s.io/restart-attempt"
L_COORD = "jobset.sigs.k8s.io/coordinator"
FOREGROUND = "foregroundDeletion"
TIMEOUT = float(os.environ.get("JAXSET_KUBE_TIMEOUT", "20"))
POLL = 0.03


def crd():
    """The JobSet CRD of config/crd as JSON (decoded by `jaxset decode`)."""
    out = subprocess.run([BIN, "decode", CRD_FILE], check=True, capture_output=True).stdout
    return json.loads(out)[0]


def start_server():
    """A real kube-apiserver when KUBEBUILDER_ASSETS names one (envtest's convention), else
    the test API server; the JobSet CRD installed."""
    import envtest
    assets = envtest.assets_dir()
    if assets:
        return envtest.KubeAPIServer(assets, crds=[crd()])
    s = Server()
    expect(s.post(CRDS, crd()), 201, "JobSet CRD")
    wait_for(lambda: s.get(f"{JS_API}/jobsets").status == 200, 10, "JobSets served")
    return s


def poll(cond, what, timeout=None):
    """Calls cond() every POLL seconds until it returns something true, and returns that; a
    cond may return (False, what it saw), named in the failure."""
    limit = timeout or TIMEOUT
    end = time.monotonic() + limit
    last = None
    while True:
        v = cond()
        if isinstance(v, tuple) and len(v) == 2 and v[0] is False:
            last = v[1]
        elif v:
            return v
        else:
            last = v
        if time.monotonic() >= end:
            raise AssertionError(f"timed out after {limit}s waiting for {what} (last: {last!r})")
        time.sleep(POLL)


def steady(cond, what, seconds=0.6):
    """cond() holds during `seconds` (a Gomega Consistently)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        check(cond(), f"no longer true: {what}")
        time.sleep(POLL * 2)


class Controller:
    """One `jaxset controller` process; its log in a file."""

    def __init__(self, server, *args, tag="ctl"):
        self.server = server
        self.dir = tempfile.mkdtemp(prefix=f"jaxset-{tag}-")
        self.log_path = os.path.join(self.dir, "log")
        self.args = args
        self.logf = open(self.log_path, "w", encoding="utf-8")
        self.proc = subprocess.Popen(
            [BIN, "controller", "--kubeconfig", server.kubeconfig, "--metrics-bind-address",
             "0", "--health-probe-bind-address", "0", *args,
             *os.environ.get("JAXSET_CTL_ARGS", "").split()],
            stdout=self.logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def log(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def alive(self):
        return self.proc.poll() is None

    def check_alive(self):
        check(self.alive(), f"the controller exited with {self.proc.returncode}:\n"
              f"{self.log()[-4000:]}")

    def kill(self):
        """SIGKILL, as a node dying under it."""
        if self.alive():
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.logf.close()

    def stop(self):
        """SIGTERM; the exit status must be 0 and the log free of sanitizer reports.  Sent
        once the controller has said it is starting: a signal that comes before the program
        has blocked it (before main) kills it the default way."""
        end = time.monotonic() + 10
        while self.alive() and "starting:" not in self.log() and time.monotonic() < end:
            time.sleep(0.05)
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.logf.close()
        log = self.log()
        for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
            check(bad not in log, f"controller log has {bad}:\n{log[-6000:]}")
        check(rc == 0, f"the controller exited with {rc} after SIGTERM:\n{log[-4000:]}")
        return rc


# ---------------------------------------------------------------------- objects

def container(name="c"):
    return {"name": name, "image": "busybox:1.36", "command": ["sleep", "1"]}


def rjob(name, replicas=1, parallelism=1, completions=1, **tmpl_spec):
    spec = {"parallelism": parallelism, "completions": completions, "backoffLimit": 0,
            "template": {"spec": {"restartPolicy": "Never", "containers": [container()],
                                  **tmpl_spec}}}
    return {"name": name, "replicas": replicas, "template": {"spec": spec}}


def test_jobset(name="test-js", **spec):
    """upstream's testJobSet: replicated-job-a (1 Job) and replicated-job-b (3 Jobs), DNS
    hostnames on; `spec` adds or replaces fields."""
    s = {"replicatedJobs": [rjob("replicated-job-a", 1), rjob("replicated-job-b", 3)],
         "network": {"enableDNSHostnames": True}}
    s.update(spec)
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name}, "spec": s}


def now_rfc3339():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def cond_true(obj, ctype):
    return any(c.get("type") == ctype and c.get("status") == "True"
               for c in (obj.get("status") or {}).get("conditions") or [])


def attempt(job):
    return (job["metadata"].get("labels") or {}).get(L_ATTEMPT)


def terminating(obj):
    return bool(obj["metadata"].get("deletionTimestamp"))


# ---------------------------------------------------------------------- a scenario

class Case:
    """A namespace of its own and one JobSet in it."""

    counter = [0]

    def __init__(self, env, js, create=True):
        self.env = env
        self.s = env.server
        Case.counter[0] += 1
        self.ns = f"ctl-{Case.counter[0]}-{os.getpid() % 1000}"
        expect(self.s.post("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                                  "metadata": {"name": self.ns}}), 201, "ns")
        self.body = js
        self.name = js["metadata"].get("name")
        self.uid = None
        env.cases.append(self)
        if create:
            self.create()

    # -------- paths
    def path(self, res, name=None, sub=None, api="/apis/batch/v1"):
        p = f"{api}/namespaces/{self.ns}/{res}"
        if name:
            p += f"/{name}"
        if sub:
            p += f"/{sub}"
        return p

    def js_path(self, sub=None, name=None):
        return self.path("jobsets", name or self.name, sub, JS_API)

    # -------- the JobSet
    def create(self, body=None):
        r = expect(self.s.post(self.path("jobsets", api=JS_API), body or self.body), 201,
                   "create JobSet")
        if body is None or body is self.body:
            self.name, self.uid = r["metadata"]["name"], r["metadata"]["uid"]
        return r

    def js(self, name=None):
        r = self.s.get(self.js_path(name=name))
        return r.json if r.status == 200 else None

    def update_js(self, mutate, name=None):
        """GET, mutate, PUT the JobSet, again on a Conflict (as a user's client does)."""
        for _ in range(50):
            js = expect(self.s.get(self.js_path(name=name)), 200, "get JobSet")
            mutate(js)
            r = self.s.put(self.js_path(name=name), js)
            if r.status == 200:
                return r.json
            if r.status != 409:
                raise AssertionError(f"update JobSet: {r}")
        raise AssertionError("update JobSet: conflicts without end")

    def status(self):
        return (self.js() or {}).get("status") or {}

    def condition(self, ctype):
        for c in self.status().get("conditions") or []:
            if c.get("type") == ctype:
                return c
        return None

    def wait_condition(self, ctype, status="True", reason=None, message=None):
        def ok():
            c = self.condition(ctype)
            good = c is not None and c.get("status") == status and \
                (reason is None or c.get("reason") == reason) and \
                (message is None or c.get("message") == message)
            return c if good else (False, self.status().get("conditions"))
        return poll(ok, f"condition {ctype}={status} {reason or ''} on {self.ns}/{self.name}")

    def wait_status(self, pred, what):
        def ok():
            st = self.status()
            return st if pred(st) else (False, st)
        return poll(ok, what)

    def rj_status(self):
        return [{k: v for k, v in r.items()} for r in self.status().get("replicatedJobsStatus")
                or []]

    def wait_rj_status(self, want):
        """replicatedJobsStatus equal to `want` ({name: {counter: n}}, missing counters 0),
        in upstream's order (names descending)."""
        full = [{"name": n, **{k: want[n].get(k, 0) for k in
                               ("ready", "succeeded", "failed", "suspended", "active")}}
                for n in sorted(want, reverse=True)]

        def ok():
            got = self.rj_status()
            return got if got == full else (False, got)
        return poll(ok, f"replicatedJobsStatus {full}")

    # -------- Jobs
    def jobs(self, live_only=False):
        r = expect(self.s.get(self.path("jobs")), 200, "list jobs")
        items = [j for j in r["items"]
                 if (j["metadata"].get("labels") or {}).get(L_JOBSET) == self.name]
        if live_only:
            items = [j for j in items if not terminating(j)]
        return sorted(items, key=lambda j: j["metadata"]["name"])

    def job(self, name):
        r = self.s.get(self.path("jobs", name))
        return r.json if r.status == 200 else None

    def wait_jobs(self, n, attempt_=None, rj=None):
        """Exactly n live Jobs (of restart attempt `attempt_` when given, every one)."""
        def ok():
            jobs = self.jobs(live_only=True)
            if rj is not None:
                jobs = [j for j in jobs if j["metadata"]["labels"].get(L_RJ) == rj]
            good = len(jobs) == n and (attempt_ is None or all(
                attempt(j) == str(attempt_) for j in jobs))
            return jobs if good else (False, [(j["metadata"]["name"], attempt(j))
                                              for j in jobs])
        return poll(ok, f"{n} jobs" + (f" of attempt {attempt_}" if attempt_ is not None
                                       else ""))

    def attempts(self):
        """{attempt: number of Jobs}, terminating ones included (NumJobsByRestartAttempt)."""
        out = {}
        for j in self.jobs():
            a = int(attempt(j))
            out[a] = out.get(a, 0) + 1
        return out

    def rj_jobs(self, rj):
        return [j for j in self.jobs(live_only=True) if j["metadata"]["labels"].get(L_RJ) == rj]

    def write_job_status(self, name, mutate):
        """The Job controller's status write: GET, mutate status, PUT /status (again on a
        Conflict)."""
        for _ in range(50):
            job = expect(self.s.get(self.path("jobs", name)), 200, f"get job {name}")
            st = job.setdefault("status", {})
            mutate(st, job)
            r = self.s.put(self.path("jobs", name, "status"), job)
            if r.status == 200:
                return r.json
            if r.status != 409:
                raise AssertionError(f"status of job {name}: {r}")
        raise AssertionError(f"status of job {name}: conflicts without end")

    def complete(self, job):
        """completeJob: SuccessCriteriaMet and Complete, succeeded = parallelism."""
        name = job if isinstance(job, str) else job["metadata"]["name"]

        def m(st, j):
            now = now_rfc3339()
            st.setdefault("startTime", now)
            st["completionTime"] = now
            st["active"] = 0
            st["ready"] = 0
            st["succeeded"] = j["spec"].get("parallelism", 1)
            st["conditions"] = (st.get("conditions") or []) + [
                {"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": now,
                 "lastProbeTime": now},
                {"type": "Complete", "status": "True", "lastTransitionTime": now,
                 "lastProbeTime": now}]
        return self.write_job_status(name, m)

    def fail(self, job, reason="BackoffLimitExceeded", message="Job has reached the "
             "specified backoff limit"):
        """failJobWithOptions: FailureTarget then Failed with the reason and message."""
        name = job if isinstance(job, str) else job["metadata"]["name"]

        def m(st, j):
            now = now_rfc3339()
            st.setdefault("startTime", now)
            st["active"] = 0
            st["ready"] = 0
            st["failed"] = st.get("failed", 0) + 1
            st["conditions"] = (st.get("conditions") or []) + [
                {"type": "FailureTarget", "status": "True", "reason": reason,
                 "message": message, "lastTransitionTime": now, "lastProbeTime": now},
                {"type": "Failed", "status": "True", "reason": reason, "message": message,
                 "lastTransitionTime": now, "lastProbeTime": now}]
        return self.write_job_status(name, m)

    def ready(self, job):
        """readyJob: active = ready = parallelism."""
        name = job if isinstance(job, str) else job["metadata"]["name"]

        def m(st, j):
            st.setdefault("startTime", now_rfc3339())
            st["active"] = j["spec"].get("parallelism", 1)
            st["ready"] = j["spec"].get("parallelism", 1)
        return self.write_job_status(name, m)

    # -------- pods, as the Job controller and the kubelet
    def add_pods(self, jobs=None, grace=3600):
        """One running pod per Job, as the Job controller creates them (controller owner
        reference with blockOwnerDeletion, controller-uid labels) and a kubelet runs them
        (nodeName set, so deleting it is graceful): a Foreground deletion of the Job then
        waits for it."""
        out = []
        for j in jobs if jobs is not None else self.jobs(live_only=True):
            m = j["metadata"]
            uid = m["uid"]
            pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {
                "name": f"{m['name']}-0-{uid[:5]}",
                "labels": {"controller-uid": uid, "batch.kubernetes.io/controller-uid": uid,
                           "job-name": m["name"], "batch.kubernetes.io/job-name": m["name"],
                           L_JOBSET: self.name},
                "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job",
                                     "name": m["name"], "uid": uid, "controller": True,
                                     "blockOwnerDeletion": True}]},
                "spec": {"nodeName": "node-1", "terminationGracePeriodSeconds": grace,
                         "restartPolicy": "Never", "containers": [container()]}}
            out.append(expect(self.s.post(self.path("pods", api="/api/v1"), pod), 201, "pod"))
        return out

    def pods(self):
        return expect(self.s.get(self.path("pods", api="/api/v1")), 200, "pods")["items"]

    def release(self, jobs):
        """The kubelet confirms that the pods of these terminating Jobs are gone (a delete
        with grace 0); without a garbage collector (envtest), the test also strips the
        foregroundDeletion finalizer as upstream's removeForegroundDeletionFinalizers."""
        names = {j["metadata"]["name"] if isinstance(j, dict) else j for j in jobs}
        uids = set()
        for n in names:
            j = self.job(n)
            if j is not None:
                uids.add(j["metadata"]["uid"])
        for p in self.pods():
            if (p["metadata"].get("labels") or {}).get("controller-uid") in uids:
                self.s.delete(self.path("pods", p["metadata"]["name"], api="/api/v1"),
                              {"gracePeriodSeconds": 0})
        if not self.s.has_gc:
            for n in names:
                self.s.patch(self.path("jobs", n), {"metadata": {"finalizers": None}})
        def gone(n):
            j = self.job(n)
            return j is None or j["metadata"]["uid"] not in uids
        poll(lambda: all(gone(n) for n in names), f"jobs {sorted(names)} gone")

    def wait_terminating(self, n):
        """n Jobs being deleted with Foreground propagation (deletionTimestamp and the
        foregroundDeletion finalizer: the Jobs' pods hold them)."""
        def ok():
            t = [j for j in self.jobs() if terminating(j)]
            good = len(t) == n and all(FOREGROUND in (j["metadata"].get("finalizers") or [])
                                       for j in t)
            return t if good else (False, [(j["metadata"]["name"],
                                            j["metadata"].get("finalizers")) for j in t])
        return poll(ok, f"{n} jobs in foreground deletion")

    # -------- services and events
    def services(self):
        return expect(self.s.get(self.path("services", api="/api/v1")), 200,
                      "services")["items"]

    def events(self, reason=None):
        r = expect(self.s.get(self.path("events", api="/api/v1") + "?" +
                              urllib.parse.urlencode({"fieldSelector": "involvedObject.name="
                                                      + self.name})), 200, "events")
        return [e for e in r["items"] if reason is None or e.get("reason") == reason]

    def wait_event(self, reason, etype=None, message=None):
        def ok():
            evs = [e for e in self.events(reason)
                   if (etype is None or e.get("type") == etype) and
                   (message is None or e.get("message") == message)]
            return evs if evs else (False, [(e.get("reason"), e.get("message"))
                                            for e in self.events()])
        return poll(ok, f"event {reason}")[0]
