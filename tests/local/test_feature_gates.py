"""`jaxset run --feature-gates ...` end to end on real processes: the RestartJob actions restart
only the failed child Job while the others keep running, with upstream's status counters;
InPlaceRestart restarts the processes of every pod in place, the pods kept, jaxset being the
in-pod agent (upstream's agent container too); without the gates such JobSets are refused
before anything starts.

Every pod runs pod.py (written next to the manifest), which appends its pid to
<marks>/starts-<hostname> and acts on MODE; pods wait on files with deadlines, never for a
fixed time."""
import atexit
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from localtest import Run, condition, main, test  # noqa: E402

POD_PY = r'''
import os, sys, time
marks, host, mode = os.environ["MARKS"], os.environ["HOSTNAME"], os.environ["MODE"]
path = os.path.join(marks, "starts-" + host)
with open(path, "a") as f:
    f.write(f"{os.getpid()}\n")


def starts(h):
    try:
        with open(os.path.join(marks, "starts-" + h)) as f:
            return len(f.read().split())
    except FileNotFoundError:
        return 0


def wait(cond):
    end = time.monotonic() + 30
    while not cond():
        if time.monotonic() > end:
            print("timed out", flush=True)
            sys.exit(9)
        time.sleep(0.02)


mine = starts(host)
failer, hosts = os.environ.get("FAILER", ""), os.environ.get("HOSTS", "").split()
if mode == "fail-twice":
    sys.exit(3 if mine <= 2 else 0)
if mode == "fail-always":
    sys.exit(3)
if mode == "per-host":           # FAILER fails once, the others outlive its restart
    mode = "fail-once" if host == failer else "outlive"
if mode == "fail-once":          # fails its first run, then succeeds
    sys.exit(3 if mine == 1 else 0)
if mode == "outlive":            # runs until FAILER has started twice
    wait(lambda: starts(failer) >= 2)
    sys.exit(0)
if mode == "in-place":           # first run: FAILER fails once all run, the others wait to be
    if mine >= 2:                # restarted in place; later runs succeed
        sys.exit(0)
    wait(lambda: all(starts(h) >= 1 for h in hosts))
    if host == failer:
        sys.exit(4)
    wait(lambda: False)
'''


class Marks:
    """A directory for the pods' files, with pod.py in it."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="jaxset-gates-")
        atexit.register(shutil.rmtree, self.dir, ignore_errors=True)
        self.py = os.path.join(self.dir, "pod.py")
        with open(self.py, "w", encoding="utf-8") as f:
            f.write(POD_PY)

    def starts(self, host):
        try:
            with open(os.path.join(self.dir, "starts-" + host), encoding="utf-8") as f:
                return f.read().split()
        except FileNotFoundError:
            return []

    def env(self, mode, failer="", hosts=""):
        return f"""
              env:
              - {{name: MARKS, value: "{self.dir}"}}
              - {{name: MODE, value: "{mode}"}}
              - {{name: FAILER, value: "{failer}"}}
              - {{name: HOSTS, value: "{hosts}"}}"""

    def container(self, mode, **kw):
        return f"""
            - name: c
              command: ["python3", "{self.py}"]{self.env(mode, **kw)}"""


def rjob(name, containers, replicas=1, pods=1, spec=""):
    return f"""
  - name: {name}
    replicas: {replicas}
    template:
      spec:
        parallelism: {pods}
        completions: {pods}{spec}
        template:
          spec:
            restartPolicy: Never
            containers:{containers}"""


def jobset(name, failure_policy, rjs):
    return f"""apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: {name}
spec:
  failurePolicy:{failure_policy}
  replicatedJobs:{''.join(rjs)}
"""


def run_files(r, name):
    d = r.run_dir(name)
    out = {}
    for f in ("jobset.json", "pods.json", "jobs.json"):
        with open(os.path.join(d, f), encoding="utf-8") as fh:
            out[f.split(".")[0]] = json.load(fh)
    with open(os.path.join(d, "events.log"), encoding="utf-8") as fh:
        out["events"] = fh.read()
    return out


def rj_status(js, name):
    return next(e for e in js["status"]["replicatedJobsStatus"] if e["name"] == name)


def restart_job_rule(action, max_restarts, target="w"):
    return f"""
    maxRestarts: {max_restarts}
    rules:
    - name: onlyThisJob
      action: {action}
      targetReplicatedJobs: [{target}]"""


@test
def restart_job_restarts_only_the_failed_job():
    m = Marks()
    once = "\n        backoffLimit: 0"
    # rj-w-1 fails its first run; every other pod runs until rj-w-1 has started again
    r = Run(jobset("rj", restart_job_rule("RestartJob", 2), [
        rjob("w", m.container("per-host", failer="rj-w-1-0"), replicas=2, spec=once),
        rjob("other", m.container("outlive", failer="rj-w-1-0"), spec=once),
    ]), "--feature-gates", "RestartJob=true").run()
    assert r.rc == 0, r.describe()
    assert len(m.starts("rj-w-1-0")) == 2, (m.starts("rj-w-1-0"), r.describe())
    assert len(m.starts("rj-w-0-0")) == 1 and len(m.starts("rj-other-0-0")) == 1, r.describe()
    f = run_files(r, "rj")
    js = f["jobset"]
    assert js["status"]["restarts"] == 0 and "restartsCountTowardsMax" not in js["status"], js
    w = rj_status(js, "w")
    assert w["jobRestarts"] == [0, 1] and w["jobRestartsCountTowardsMax"] == [0, 1], w
    assert w["succeeded"] == 2 and w["failed"] == 0, w
    assert "jobRestarts" not in rj_status(js, "other"), js
    assert condition(js, "Completed"), js
    assert not condition(js, "RestartingJobSet"), js
    pods = {}
    for p in f["pods"]:
        pods.setdefault(p["hostname"], []).append(p)
    assert len(pods["rj-w-1-0"]) == 2 and len(pods["rj-w-0-0"]) == 1, pods
    first, second = pods["rj-w-1-0"]
    assert first["phase"] == "Failed" and first["jobRestartAttempt"] == 0, first
    assert second["phase"] == "Succeeded" and second["jobRestartAttempt"] == 1, second
    assert first["name"] != second["name"], pods
    assert all(p["restartAttempt"] == 0 for p in f["pods"]), f["pods"]
    job = next(j for j in f["jobs"] if j["metadata"]["name"] == "rj-w-1")
    assert job["metadata"]["labels"]["jobset.sigs.k8s.io/job-restart-attempt"] == "1", job
    assert ("RestartJobFailurePolicyAction: applying RestartJob failure policy action (first "
            "failed job: rj-w-1)") in f["events"], f["events"]
    assert "job restarts 1" in r.err, r.describe()
    assert not r.leftovers(), r.leftovers()


@test
def restart_job_and_ignore_max_restarts():
    m = Marks()
    r = Run(jobset("ig", restart_job_rule("RestartJobAndIgnoreMaxRestarts", 0), [
        rjob("w", m.container("fail-twice"), spec="\n        backoffLimit: 0"),
    ]), "--feature-gates", "RestartJob=true").run()
    assert r.rc == 0, r.describe()
    assert len(m.starts("ig-w-0-0")) == 3, r.describe()
    w = rj_status(r.jobset("ig"), "w")
    assert w["jobRestarts"] == [2] and "jobRestartsCountTowardsMax" not in w, w


@test
def restart_job_reaches_max_restarts():
    m = Marks()
    r = Run(jobset("mx", restart_job_rule("RestartJob", 1), [
        rjob("w", m.container("fail-always"), spec="\n        backoffLimit: 0"),
    ]), "--feature-gates", "RestartJob=true").run()
    assert r.rc == 1, r.describe()
    js = r.jobset("mx")
    failed = condition(js, "Failed")
    assert failed and failed["reason"] == "ReachedMaxRestarts", js
    assert failed["message"] == ("jobset failed due to reaching max number of restarts (first "
                                 "failed job: mx-w-0)"), failed
    assert rj_status(js, "w")["jobRestarts"] == [1], js
    assert len(m.starts("mx-w-0-0")) == 2, r.describe()


def in_place_jobset(m, name, mode, max_restarts=3, agent=False):
    hosts = " ".join(f"{name}-w-{j}-{p}" for j in range(2) for p in range(2))
    spec = ("\n        backoffLimit: 2147483647\n        podReplacementPolicy: Failed")
    if agent:  # upstream's main-container mode: the agent runs WORKER_COMMAND
        containers = f"""
            - name: in-place-restart-agent
              image: registry.example/jobset/in-place-restart-agent:v0.1{m.env(
                  mode, failer=f"{name}-w-1-1", hosts=hosts)}
              - {{name: WORKER_COMMAND, value: "python3 {m.py}"}}"""
    else:
        containers = m.container(mode, failer=f"{name}-w-1-1", hosts=hosts)
    return jobset(name, f"""
    maxRestarts: {max_restarts}
    restartStrategy: InPlaceRestart""", [rjob("w", containers, replicas=2, pods=2, spec=spec)])


def check_in_place(r, m, name):
    assert r.rc == 0, r.describe()
    f = run_files(r, name)
    st = f["jobset"]["status"]
    assert st["restarts"] == 0, st
    assert st.get("currentInPlaceRestartAttempt") == 1, st
    assert st.get("previousInPlaceRestartAttempt") == 0, st
    assert len(f["pods"]) == 4, f["pods"]  # the same four pods, none recreated
    for p in f["pods"]:
        assert p["phase"] == "Succeeded" and p["restartCount"] == 1, p
        assert p["inPlaceRestartAttempt"] == 1 and p["restartAttempt"] == 0, p
        pids = m.starts(p["hostname"])
        assert len(pids) == 2 and pids[0] != pids[1], (p["hostname"], pids)
    assert "in-place restarts 1" in r.err, r.describe()
    assert not r.leftovers(), r.leftovers()


@test
def in_place_restart_keeps_the_pods():
    m = Marks()
    r = Run(in_place_jobset(m, "ipr", "in-place"), "--feature-gates",
            "InPlaceRestart=true").run()
    check_in_place(r, m, "ipr")
    assert "pod ipr-w-1-1-" in r.err and "restarts in place" in r.err, r.describe()


@test
def in_place_restart_with_upstreams_agent_container():
    m = Marks()
    r = Run(in_place_jobset(m, "ag", "in-place", agent=True), "--feature-gates",
            "InPlaceRestart=true").run()
    check_in_place(r, m, "ag")


@test
def in_place_restart_reaches_max_restarts():
    m = Marks()
    r = Run(in_place_jobset(m, "ipm", "fail-always", max_restarts=2), "--feature-gates",
            "InPlaceRestart=true").run()
    assert r.rc == 1, r.describe()
    js = r.jobset("ipm")
    failed = condition(js, "Failed")
    assert failed and failed["reason"] == "ReachedMaxRestarts", js
    assert failed["message"] == "jobset failed due to reaching max number of restarts", failed
    assert not r.leftovers(), r.leftovers()


@test
def gated_features_refused_without_their_gate():
    m = Marks()
    cases = [
        (jobset("off", restart_job_rule("RestartJob", 1), [rjob("w", m.container("fail-once"))]),
         "RestartJob", "spec.failurePolicy.rules[0].action"),
        (in_place_jobset(m, "off", "in-place"), "InPlaceRestart",
         "spec.failurePolicy.restartStrategy"),
    ]
    for manifest, gate, field in cases:
        for args in ([], ["--feature-gates", "ElasticJobSet=true"]):
            r = Run(manifest, *args).run()
            assert r.rc == 2, r.describe()
            assert f"{field}: Invalid value" in r.err, r.describe()
            assert f"(turn it on with --feature-gates={gate}=true)" in r.err, r.describe()
            assert not os.path.exists(os.path.join(r.home, "runs")), r.describe()
    assert os.listdir(m.dir) == ["pod.py"], os.listdir(m.dir)  # nothing ran


if __name__ == "__main__":
    main()
