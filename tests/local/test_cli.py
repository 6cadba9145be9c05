"""What the CLI shows of local runs: `describe`, `get` (order, AGE/DURATION, -o wide, the List of
-o json|yaml), `logs` (hostname prefixes, restart-attempt headers, --attempt, -f ending when the
run is gone), and `--help` / `jaxset help` for every command."""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from localtest import BIN, SRC, Run, main, test, wait_for  # noqa: E402


def manifest(name, script, pods=2, spec="", annotations="", containers=None):
    """A JobSet of one replicated job `w` (one Job of `pods` pods, restartPolicy Never); each
    container runs `sh -c` of its script, with ATTEMPT set to the pod's restart attempt."""
    containers = containers or {"c": script}
    body = "".join(f"""
            - name: {c}
              command: ["sh", "-c", {s!r}]
              env:
              - name: ATTEMPT
                valueFrom:
                  fieldRef:
                    fieldPath: metadata.labels['jobset.sigs.k8s.io/restart-attempt']"""
                   for c, s in containers.items())
    return f"""apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: {name}{annotations}
spec:{spec}
  replicatedJobs:
  - name: w
    replicas: 1
    template:
      spec:
        parallelism: {pods}
        completions: {pods}
        backoffLimit: 0
        template:
          spec:
            restartPolicy: Never
            containers:{body}
"""


def jaxset(home, *args, timeout=30):
    p = subprocess.run([BIN, *args], env=dict(os.environ, JAXSET_HOME=home), cwd=SRC,
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


# Pod 1 fails with exit code 3 in every attempt; pod 0 waits and is stopped by SIGTERM.  With
# maxRestarts 1: attempt 0 fails, the gang restarts once, attempt 1 fails the JobSet.
FAILING = ("echo hi $HOSTNAME attempt $ATTEMPT; "
           "if [ $JOB_COMPLETION_INDEX = 1 ]; then sleep 0.3; exit 3; fi; exec sleep 30")
_failed = {}


def failed_run():
    """One failing run with a gang restart (shared by the tests that only read it)."""
    if not _failed:
        ann = "\n  annotations: {jaxset.dev/jax-runtime: jobset}"
        r = Run(manifest("dfail", FAILING, spec="\n  failurePolicy:\n    maxRestarts: 1",
                         annotations=ann)).run()
        assert r.rc == 1, r.describe()
        _failed["run"] = r
    return _failed["run"]


def section(out, title, end):
    return out.split(f"\n{title}")[1].split(f"\n{end}")[0]


@test
def describe_shows_pods_of_every_attempt_with_exit_codes():
    r = failed_run()
    rc, out, err = jaxset(r.home, "describe", "dfail")
    assert rc == 0, err
    assert re.search(r"^Name: +dfail$", out, re.M), out
    assert re.search(r"^Namespace: +default$", out, re.M), out
    assert re.search(rf"^Source: +{re.escape(r.path)}$", out, re.M), out
    assert re.search(rf"^Run Directory: +{re.escape(r.run_dir('dfail'))}$", out, re.M), out
    assert re.search(r"^State: +Failed \(exit status 1\)$", out, re.M), out
    assert re.search(r"^Start Time: +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(\d+s ago\)$", out,
                     re.M), out
    assert re.search(r"^Duration: +\d+s$", out, re.M), out
    assert re.search(r"^Restarts: +1 \(1 of maxRestarts 1\)$", out, re.M), out
    assert re.search(r"^Terminal State: +Failed$", out, re.M), out
    assert re.search(r"^JAX Coordinator: +127\.0\.0\.1:\d+$", out, re.M), out
    conds = section(out, "Conditions:", "Replicated Jobs:")
    assert re.search(r"Failed +True +ReachedMaxRestarts +\S+ +jobset failed due to reaching",
                     conds), conds
    rjs = section(out, "Replicated Jobs:", "Jobs:")
    assert re.search(r"^  w +0 +0 +0 +1 +0$", rjs, re.M), rjs
    jobs = section(out, "Jobs:", "Pods:")
    assert re.search(r"^  dfail-w-0 +w +1 +0 +0 +0 +2 +Failed=True \(BackoffLimitExceeded\)$",
                     jobs, re.M), jobs
    pods = section(out, "Pods:", "Events:")
    assert pods.index("Restart Attempt 0:") < pods.index("Restart Attempt 1:"), pods
    for attempt in pods.split("Restart Attempt ")[1:]:
        # hostname, JAX process id, phase, restarts, exit, start, finish
        ts = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
        assert re.search(rf"dfail-w-0-1-\w{{5}} +dfail-w-0-1 +1 +Failed +0 +3 +{ts} +{ts}",
                         attempt), pods
        assert re.search(r"dfail-w-0-0-\w{5} +dfail-w-0-0 +0 +Failed +0 +SIGTERM \(143\)",
                         attempt), pods
    events = out.split("\nEvents:")[1]
    assert re.search(r"Warning +ReachedMaxRestarts +\d+s +jobset failed due", events), events
    assert re.search(r"Note +- +- +the first pod to fail: pod dfail-w-0-", events), events
    rc, out, err = jaxset(r.home, "get", "events", "--all", "-o", "json")  # the same log
    evs = json.loads(out)["items"] if rc == 0 else err
    assert ("Warning", "ReachedMaxRestarts", "JobSet", "dfail") in [
        (e["type"], e["reason"], e["involvedObject"]["kind"], e["involvedObject"]["name"])
        for e in evs], evs
    assert all(e["type"] != "Note" and e["lastTimestamp"] for e in evs), evs


@test
def describe_names_the_first_failed_pod_of_every_attempt_and_what_it_said():
    r = failed_run()
    rc, out, err = jaxset(r.home, "describe", "dfail")
    assert rc == 0, err
    rows = section(out, "First Failures:", "Events:").splitlines()
    assert re.fullmatch(r"  Attempt +Hostname +JAX Process +Pod +Exit +Error", rows[1]), rows
    for attempt, row in enumerate(rows[2:]):
        assert re.fullmatch(rf"  {attempt} +dfail-w-0-1 +1 +dfail-w-0-1-\w{{5}} +3 +"
                            rf"hi dfail-w-0-1 attempt {attempt}", row), rows
    assert len(rows) == 4, rows


@test
def describe_usage_and_missing_run():
    home = tempfile.mkdtemp(prefix="jaxset-test-")
    assert jaxset(home, "describe")[0] == 2
    assert jaxset(home, "describe", "a", "b")[0] == 2
    rc, _, err = jaxset(home, "describe", "nothing")
    assert rc == 2 and 'no run of "nothing"' in err, err


@test
def get_prints_the_jobset_and_get_pods_its_pods():
    """`get NAME -o json` is the JobSet itself, as kubectl and a cluster's `get` print it; its
    pods are `get pods -l jobset.sigs.k8s.io/jobset-name=NAME`, a v1 List of Pods."""
    r = failed_run()
    rc, out, err = jaxset(r.home, "get", "dfail", "-o", "json")
    assert rc == 0, err
    js = json.loads(out)
    assert js["kind"] == "JobSet" and js["status"]["terminalState"] == "Failed", js.keys()
    sel = "jobset.sigs.k8s.io/jobset-name=dfail"
    rc, out, err = jaxset(r.home, "get", "pods", "-l", sel, "-o", "json")
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["kind"] == "List" and doc["apiVersion"] == "v1", doc.keys()
    pods = doc["items"]
    assert [p["kind"] for p in pods] == ["Pod"] * 4, pods
    lbl = "jobset.sigs.k8s.io/restart-attempt"
    assert sorted(p["metadata"]["labels"][lbl] for p in pods) == ["0", "0", "1", "1"], pods
    for p in pods:
        st = p["status"]["containerStatuses"][0]
        idx = p["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"]
        assert p["metadata"]["annotations"]["jaxset.dev/jax-process-id"] == idx, p
        assert p["spec"]["hostname"] == f"dfail-w-0-{idx}" and p["status"]["phase"] == "Failed"
        term = st["state"]["terminated"]
        if idx == "1":
            assert term == {"exitCode": 3, "reason": "Error"}, st
        else:
            assert term == {"exitCode": 143, "signal": 15, "reason": "Error"}, st
    rc, out, err = jaxset(r.home, "get", "dfail", "-o", "yaml")
    assert rc == 0 and out.startswith("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\n"), out
    rc, out, err = jaxset(r.home, "get", "pods", "-l", sel, "-o", "yaml")
    assert rc == 0 and (out.startswith("apiVersion: v1\nitems:\n") or
                        out.startswith("apiVersion: v1\nkind: List\n")), out
    assert out.count("\n  kind: Pod\n") == 4, out
    rc, out, err = jaxset(r.home, "get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name=other",
                          "-o", "json")
    assert rc == 0 and json.loads(out)["items"] == [], out


@test
def get_takes_kinds_several_names_and_prints_names_and_jsonpath():
    """The arguments and shapes of a cluster's `get`: KIND/NAME, several names (a List), -o
    name as kubectl writes a CRD's, -o jsonpath; an unknown name is an error, the others are
    printed all the same."""
    r = failed_run()
    rc, out, err = jaxset(r.home, "get", "jobset/dfail", "-o", "json")
    assert rc == 0 and json.loads(out)["kind"] == "JobSet", (out, err)
    rc, out, err = jaxset(r.home, "get", "dfail", "jobset/dfail", "-o", "json")
    doc = json.loads(out)
    assert rc == 0 and doc["kind"] == "List" and len(doc["items"]) == 2, doc
    rc, out, err = jaxset(r.home, "get", "dfail", "-o", "name")
    assert rc == 0 and out == "jobset.jobset.x-k8s.io/dfail\n", out
    rc, out, err = jaxset(r.home, "get", "dfail", "-o",
                          "jsonpath={.metadata.name} {.metadata.annotations.jaxset\\.dev/run-state}")
    assert rc == 0 and out == "dfail Failed", (out, err)
    rc, out, err = jaxset(r.home, "get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name=dfail",
                          "-o", "jsonpath={range .items[*]}{.spec.hostname}{\"\\n\"}{end}")
    assert rc == 0 and sorted(out.splitlines()) == ["dfail-w-0-0", "dfail-w-0-0",
                                                    "dfail-w-0-1", "dfail-w-0-1"], out
    rc, out, err = jaxset(r.home, "get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name=dfail",
                          "-o", "name")
    assert rc == 0 and len(out.splitlines()) == 4 and out.startswith("pod/dfail-w-0-"), out
    rc, out, err = jaxset(r.home, "get", "dfail", "nothing", "-o", "name")
    assert rc == 2 and out == "jobset.jobset.x-k8s.io/dfail\n", out
    assert 'no run of "nothing"' in err, err
    rc, out, err = jaxset(r.home, "get", "pods")  # a NAME alone is a JobSet's, as on a cluster
    assert rc == 2 and 'no run of "pods"' in err, err
    rc, out, err = jaxset(r.home, "get", "pods", "--all")
    assert rc == 2 and 'unknown kind "pods"' in err, err


@test
def get_json_of_a_jaxjobs_run_carries_the_jaxjob_with_its_status():
    """The JAXJob of a local run with the status its controller would write
    (api/kubeflow/jaxjob_status.h), kept by the run from one change to the next: Running turned False
    when it Succeeded."""
    r = Run("""apiVersion: kubeflow.org/v1
kind: JAXJob
metadata: {name: jj}
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - {name: jax, image: x, command: ["sh", "-c", "sleep 0.3"]}
""").run()
    assert r.rc == 0, r.describe()
    rc, out, err = jaxset(r.home, "get", "jaxjob/jj", "-o", "json")
    assert rc == 0, err
    jj = json.loads(out)
    assert jj["kind"] == "JAXJob", jj
    rc, out, err = jaxset(r.home, "get", "jj", "-o", "json")
    assert rc == 0 and json.loads(out)["kind"] == "JobSet", out
    assert jj["metadata"]["namespace"] == "default" and jj["metadata"]["creationTimestamp"], jj
    conds = [(c["type"], c["status"], c["reason"]) for c in jj["status"]["conditions"]]
    assert conds == [("Created", "True", "JAXJobCreated"), ("Running", "False", "JAXJobRunning"),
                     ("Succeeded", "True", "JAXJobSucceeded")], conds
    worker = jj["status"]["replicaStatuses"]["Worker"]
    assert (worker["active"], worker["succeeded"], worker["failed"]) == (0, 2, 0), worker


@test
def a_trainjobs_run_is_read_back_as_its_trainjob():
    """`get trainjob/NAME`, `wait trainjob/NAME` and `describe trainjob/NAME` of a local run,
    as on a cluster: the TrainJob with the status Trainer's controller would write
    (api/kubeflow/trainjob_status.h)."""
    r = Run.example("trainjob.yaml").run()
    assert r.rc == 0, r.describe()
    rc, out, err = jaxset(r.home, "get", "trainjob/mnist-jax", "-o", "json")
    assert rc == 0, err
    tj = json.loads(out)
    assert (tj["kind"], tj["metadata"]["name"]) == ("TrainJob", "mnist-jax"), tj
    conds = [(c["type"], c["status"]) for c in tj["status"]["conditions"]]
    assert ("Complete", "True") in conds and ("Failed", "True") not in conds, conds
    assert tj["status"]["jobsStatus"][0]["succeeded"] == 1, tj["status"]
    rc, out, err = jaxset(r.home, "wait", "trainjob/mnist-jax", "--timeout", "10s")
    assert rc == 0 and "trainjob.trainer.kubeflow.org/mnist-jax condition met" in out, out + err
    rc, out, err = jaxset(r.home, "get", "trainjob/mnist-jax", "-o", "name")
    assert (rc, out) == (0, "trainjob.trainer.kubeflow.org/mnist-jax\n"), (rc, out, err)
    rc, out, err = jaxset(r.home, "get", "jaxjob/mnist-jax")
    assert rc == 2, (rc, out, err)


@test
def wait_for_a_jaxjob_whose_run_was_interrupted_ends():
    """The JAXJob of a run carries the run's state as its JobSet does: `wait jaxjob/NAME` of an
    interrupted run ends (exit 1) instead of waiting for a status no one will write."""
    r = Run("""apiVersion: kubeflow.org/v1
kind: JAXJob
metadata: {name: jjw}
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: 1
      template:
        spec:
          containers:
          - {name: jax, image: x, command: ["sh", "-c", "touch $JAXSET_HOME/up; sleep 60"]}
""").start()
    wait_for(lambda: os.path.exists(os.path.join(r.home, "up")), 20, "the worker running")
    r.proc.send_signal(signal.SIGINT)
    r.wait(30)
    rc, out, err = jaxset(r.home, "wait", "jaxjob/jjw", timeout=20)
    assert rc == 1 and "is Interrupted" in err, (rc, out, err)


@test
def a_trainjob_whose_run_was_interrupted_is_failed():
    """A TrainJob's run that jaxset ended without finishing it is Failed (RunFailed, naming the
    run's state), as the SDK waits on it (one that completed is not: the test above)."""
    r = Run("""apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: sleepy, labels: {trainer.kubeflow.org/framework: jax}}
spec:
  mlPolicy: {numNodes: 1, jax: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec:
            template:
              spec:
                containers:
                - {name: node, image: x, command: ["sh", "-c", "touch $JAXSET_HOME/up; sleep 60"]}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tji}
spec:
  runtimeRef: {name: sleepy}
""").start()
    wait_for(lambda: os.path.exists(os.path.join(r.home, "up")), 20, "the node running")

    def failed():
        rc, out, err = jaxset(r.home, "get", "trainjob/tji", "-o", "json")
        assert rc == 0, err
        return [c for c in json.loads(out)["status"].get("conditions", [])
                if c["type"] == "Failed" and c["status"] == "True"]
    assert failed() == [], "Failed while the run goes"
    r.proc.send_signal(signal.SIGINT)
    r.wait(30)
    got = failed()
    assert [(c["reason"], c["message"]) for c in got] == [
        ("RunFailed", "jaxset run ended: Interrupted")], got


@test
def a_jaxjobs_pods_carry_the_training_operators_labels():
    """Each pod of a JAXJob run carries the labels the Training Operator gives its pods
    (kubeflow/training-operator pkg/controller.v1/common/pod.go createNewPod): job-name,
    operator-name, replica-type, its own replica-index, and job-role=master on index 0 only
    (what the TrainingClient's get_job_pods and get_job_logs select), in `get pods -l` and in
    pods.json."""
    r = Run("""apiVersion: kubeflow.org/v1
kind: JAXJob
metadata: {name: jjl}
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: 3
      template:
        metadata: {labels: {team: ml}}
        spec:
          containers:
          - {name: jax, image: x, command: ["true"]}
""").run()
    assert r.rc == 0, r.describe()
    rc, out, err = jaxset(r.home, "get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name=jjl",
                          "-o", "json")
    assert rc == 0, err
    kf = "training.kubeflow.org/"
    with open(os.path.join(r.run_dir("jjl"), "pods.json"), encoding="utf-8") as f:
        recorded = {p["name"]: p for p in json.load(f)}
    pods = [i for i in json.loads(out)["items"] if i["kind"] == "Pod"]
    assert len(pods) == 3, pods
    for p in pods:
        labels = p["metadata"]["labels"]
        idx = labels["batch.kubernetes.io/job-completion-index"]
        want = {kf + "job-name": "jjl", kf + "operator-name": "jaxjob-controller",
                kf + "replica-type": "worker", kf + "replica-index": idx, "team": "ml"}
        if idx == "0":
            want[kf + "job-role"] = "master"
        got = {k: v for k, v in labels.items() if k.startswith(kf) or k == "team"}
        assert got == want, (idx, labels)
        rec = recorded[p["metadata"]["name"]]
        rec_labels = (rec.get("metadata") or rec).get("labels") or {}
        assert {k: v for k, v in rec_labels.items() if k in want} == want, rec
    assert sorted(p["metadata"]["labels"][kf + "replica-index"] for p in pods) == ["0", "1", "2"]


def fake_run(home, name, start_ago, state, end_after=None, pid=None, terminal=None,
             restarts=0, pods=0, exit_status=None):
    """A run directory as a run leaves it, started `start_ago` seconds ago."""
    now = time.time()
    iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))  # noqa: E731
    start = now - start_ago
    d = os.path.join(home, "runs", name, time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(start)) +
                     f"-{pid or 1}")
    os.makedirs(d)
    run = {"name": name, "source": f"{name}.yaml", "state": state, "pid": pid or 0,
           "startTime": iso(start), "updateTime": iso(start + (end_after or 0)),
           "coordinatorPort": 1234}
    if exit_status is not None:
        run["exitStatus"] = exit_status
    status = {"restarts": restarts}
    if terminal:
        status["terminalState"] = terminal
    files = {"run.json": run, "jobset.json": {"kind": "JobSet", "status": status},
             "pods.json": [{"name": f"{name}-{i}", "restartAttempt": 0} for i in range(pods)]}
    for f, v in files.items():
        with open(os.path.join(d, f), "w", encoding="utf-8") as out:
            json.dump(v, out)
    os.symlink(d, os.path.join(home, "runs", name, "latest"))
    return d


def dead_pid():
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


@test
def get_lists_runs_newest_first_with_age_and_duration():
    home = tempfile.mkdtemp(prefix="jaxset-test-")
    old = fake_run(home, "old", 3 * 86400 + 30, "Completed", end_after=5 * 3600,
                   terminal="Completed", pods=4, exit_status=0)
    mid = fake_run(home, "mid", 300, "Failed", end_after=90, terminal="Failed", restarts=2,
                   pods=2, exit_status=1)
    lost = fake_run(home, "lost", 200, "Running", end_after=20, pid=dead_pid(), pods=1)
    live = fake_run(home, "live", 10, "Running", pid=os.getpid(), pods=3)
    rc, out, err = jaxset(home, "get")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "STATE", "TERMINALSTATE", "RESTARTS", "AGE",
                                "DURATION", "PROGRESS"], out
    rows = [l.split() for l in lines[1:]]
    assert [r[0] for r in rows] == ["live", "lost", "mid", "old"], out
    assert re.fullmatch(r"live Running - 0 1\ds 1\ds -", " ".join(rows[0])), out
    assert re.fullmatch(r"lost Lost - 0 3m2\ds 20s -", " ".join(rows[1])), out
    assert re.fullmatch(r"mid Failed Failed 2 5m(\ds)? 90s -", " ".join(rows[2])), out
    assert " ".join(rows[3]) == "old Completed Completed 0 3d 5h -", out
    rc, out, err = jaxset(home, "get", "-o", "wide")
    assert rc == 0, err
    lines = out.splitlines()
    assert re.split(r"\s{2,}", lines[0]) == ["NAME", "STATE", "TERMINALSTATE", "RESTARTS",
                                             "AGE", "DURATION", "PROGRESS", "PODS",
                                             "EXIT", "RUN DIRECTORY"], out
    cols = [l.split()[-3:] for l in lines[1:]]
    assert cols == [["3", "-", live], ["1", "-", lost], ["2", "1", mid], ["4", "0", old]], out
    rc, out, err = jaxset(home, "get", "mid", "-o", "wide")
    assert rc == 0 and out.splitlines()[1].split()[0] == "mid" and len(out.splitlines()) == 2
    assert jaxset(home, "get", "-o", "bogus")[0] == 2


@test
def get_json_carries_the_run_state_and_fails_the_pods_a_lost_run_left():
    """The state `get` shows is in its JSON (jaxset.dev/run-state, jaxset.dev/run-dir); a run
    whose process died shows its pods Failed (`get pods -l ...`); without NAME, a List of every
    run's JobSet."""
    home = tempfile.mkdtemp(prefix="jaxset-test-")
    done = fake_run(home, "done", 300, "Completed", end_after=5, terminal="Completed", pods=1,
                    exit_status=0)
    lost = fake_run(home, "lost", 200, "Running", end_after=20, pid=dead_pid(), pods=2)
    with open(os.path.join(lost, "pods.json"), "w", encoding="utf-8") as f:
        json.dump([{"name": "lost-0", "job": "lost-w-0", "phase": "Running"},
                   {"name": "lost-1", "job": "lost-w-0", "phase": "Succeeded"}], f)
    with open(os.path.join(lost, "jobs.json"), "w", encoding="utf-8") as f:
        json.dump([{"kind": "Job", "metadata": {"name": "lost-w-0"}, "spec": {"template": {
            "spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": 1}}}]}}}}], f)
    rc, out, err = jaxset(home, "get", "lost", "-o", "json")
    assert rc == 0, err
    js = json.loads(out)
    rc, out, err = jaxset(home, "get", "pods", "-l", "jobset.sigs.k8s.io/jobset-name=lost",
                          "-o", "json")
    assert rc == 0, err
    pods = json.loads(out)["items"]
    ann = js["metadata"]["annotations"]
    assert (ann["jaxset.dev/run-state"], ann["jaxset.dev/run-dir"]) == ("Lost", lost), ann
    assert [p["status"]["phase"] for p in pods] == ["Failed", "Succeeded"], pods
    assert pods[0]["spec"]["containers"][0]["resources"] == {"limits": {"cpu": 1}}, pods
    rc, out, err = jaxset(home, "get", "-o", "json")
    assert rc == 0, err
    got = [(i["kind"], i["metadata"]["annotations"]["jaxset.dev/run-state"],
            i["metadata"]["annotations"]["jaxset.dev/run-dir"]) for i in json.loads(out)["items"]]
    assert got == [("JobSet", "Lost", lost), ("JobSet", "Completed", done)], got


def logs(r, *args):
    return jaxset(r.home, "logs", *args)


@test
def logs_prefix_hostnames_and_group_restart_attempts():
    r = failed_run()
    rc, out, err = logs(r, "dfail")
    assert rc == 0, err
    expect = []
    for a in (0, 1):
        expect += [f"--- restart attempt {a} ---", f"[dfail-w-0-0] hi dfail-w-0-0 attempt {a}",
                   f"[dfail-w-0-1] hi dfail-w-0-1 attempt {a}"]
    assert out.splitlines() == expect, out
    rc, out, err = logs(r, "dfail", "--attempt", "1")
    assert rc == 0 and out.splitlines() == expect[4:], out
    rc, out, err = logs(r, "--attempt=0", "dfail", "dfail-w-0-1")
    assert rc == 0 and out == "hi dfail-w-0-1 attempt 0\n", out
    rc, out, err = logs(r, "dfail", "dfail-w-0-1")
    assert rc == 0 and out.splitlines() == [expect[0], expect[2], expect[3], expect[5]], out
    rc, out, err = logs(r, "dfail", "--attempt", "2")
    assert rc == 2 and "restart attempt 2" in err, err
    assert logs(r, "dfail", "--attempt", "x")[0] == 2


@test
def logs_of_pods_with_several_containers_and_of_runs_without_pods_json():
    r = Run(manifest("mc", "", pods=1, containers={"a": "echo from a", "b": "echo from b"}))
    assert r.run().rc == 0, r.describe()
    rc, out, err = logs(r, "mc")
    assert rc == 0 and sorted(out.splitlines()) == ["[mc-w-0-0/a] from a",
                                                     "[mc-w-0-0/b] from b"], out
    # a run of an older jaxset has no pods.json: pods are named by their log files
    os.unlink(os.path.join(r.run_dir("mc"), "pods.json"))
    rc, out, err = logs(r, "mc")
    assert rc == 0 and all(re.match(r"\[mc-w-0-0-\w{5}\.[ab]\] from [ab]$", l)
                           for l in out.splitlines()) and len(out.splitlines()) == 2, out
    rc, out, err = logs(r, "mc", "--attempt", "0")
    assert rc == 2 and "pods.json" in err, err


@test
def logs_follow_across_a_gang_restart():
    # attempt 0: pod 1 fails once pod 0 has printed; attempt 1 succeeds
    script = ("echo start $HOSTNAME $ATTEMPT; "
              "if [ $ATTEMPT = 0 ] && [ $JOB_COMPLETION_INDEX = 1 ]; then sleep 0.5; exit 3; fi; "
              "echo end $HOSTNAME $ATTEMPT")
    r = Run(manifest("fr", script, spec="\n  failurePolicy:\n    maxRestarts: 1")).start()
    wait_for(lambda: os.path.exists(os.path.join(r.run_dir("fr"), "logs")), 20, "the run")
    f = subprocess.Popen([BIN, "logs", "-f", "fr"], env=dict(os.environ, JAXSET_HOME=r.home),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = f.communicate(timeout=30)
    r.wait(30)
    assert r.rc == 0 and f.returncode == 0, (r.describe(), err)
    lines = out.splitlines()
    at = lines.index("--- restart attempt 1 ---")
    want0 = {"[fr-w-0-0] start fr-w-0-0 0", "[fr-w-0-0] end fr-w-0-0 0",
             "[fr-w-0-1] start fr-w-0-1 0"}
    want1 = {f"[fr-w-0-{i}] {w} fr-w-0-{i} 1" for i in (0, 1) for w in ("start", "end")}
    assert set(lines[:at]) - {"--- restart attempt 0 ---"} == want0, out
    assert sorted(lines[at + 1:]) == sorted(want1), out


@test
def logs_follow_of_one_pod_before_its_log_exists_prints_bare_lines():
    """`logs -f NAME POD` started before the pod wrote anything: its one log, unprefixed."""
    script = "while [ ! -e $JAXSET_HOME/go ]; do sleep 0.05; done; echo one; echo two"
    r = Run(manifest("bare", script, pods=2)).start()
    wait_for(lambda: os.path.exists(os.path.join(r.run_dir("bare"), "run.json")), 20, "run")
    f = subprocess.Popen([BIN, "logs", "-f", "bare", "bare-w-0-1"],
                         env=dict(os.environ, JAXSET_HOME=r.home), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)  # lets logs -f scan while there is no log yet (not an assertion)
    open(os.path.join(r.home, "go"), "w").close()
    out, err = f.communicate(timeout=30)
    r.wait(30)
    assert r.rc == 0 and f.returncode == 0, (r.describe(), err)
    assert out == "one\ntwo\n", out


WAITING = ("echo first; while [ ! -e $JAXSET_HOME/go ]; do sleep 0.05; done; echo second")


def follow_until_gone(name, end_it):
    r = Run(manifest(name, WAITING, pods=1)).start()
    run_json = lambda: os.path.exists(os.path.join(r.run_dir(name), "run.json"))  # noqa: E731
    wait_for(run_json, 20, "the run's run.json")
    f = subprocess.Popen([BIN, "logs", "-f", name], env=dict(os.environ, JAXSET_HOME=r.home),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = f.stdout.readline()
        assert line == f"[{name}-w-0-0] first\n", line
        time.sleep(0.3)
        assert f.poll() is None, "logs -f ended while the run was going on"
        end_it(r)
        out, err = f.communicate(timeout=10)
    finally:
        if f.poll() is None:
            f.kill()
            f.wait()
        open(os.path.join(r.home, "go"), "w").close()
        if r.proc.poll() is None:
            r.wait(30)
        else:
            r.proc.wait()
    assert f.returncode == 0 and out == "", (out, err)
    return r, err


@test
def logs_follow_ends_when_run_json_is_removed():
    r, err = follow_until_gone("rmjson", lambda r: os.unlink(
        os.path.join(r.run_dir("rmjson"), "run.json")))
    assert "run.json is missing or unreadable: the run is gone" in err, err


@test
def logs_follow_ends_when_the_supervisor_is_gone():
    def kill(r):
        r.proc.send_signal(signal.SIGKILL)
        r.proc.wait()
    r, err = follow_until_gone("sup", kill)
    assert "is gone: the run is Lost" in err, err
    wait_for(lambda: not r.leftovers(), 10, "the workers gone with their supervisor")
    rc, out, _ = jaxset(r.home, "get", "sup")
    assert rc == 0 and out.splitlines()[1].split()[1] == "Lost", out


@test
def logs_take_a_clusters_selection_options():
    """--tail, --process-id, --pod, -c, --previous and KIND/NAME, as on a cluster."""
    r = failed_run()
    rc, out, err = logs(r, "jobset/dfail", "--tail", "1", "--attempt", "1")
    assert rc == 0 and out.splitlines() == ["[dfail-w-0-0] hi dfail-w-0-0 attempt 1",
                                            "[dfail-w-0-1] hi dfail-w-0-1 attempt 1"], out
    rc, out, err = logs(r, "dfail", "--tail", "0")
    assert rc == 0 and "hi" not in out, out
    rc, out, err = logs(r, "dfail", "--process-id", "1", "--attempt", "0")
    assert rc == 0 and out == "hi dfail-w-0-1 attempt 0\n", out
    rc, out, err = logs(r, "dfail", "--pod", "dfail-w-0-0", "-c", "c", "--previous")
    assert rc == 0 and out == "hi dfail-w-0-0 attempt 0\n", (out, err)
    rc, out, err = logs(r, "dfail", "-p")
    assert rc == 0 and sorted(out.splitlines()) == ["[dfail-w-0-0] hi dfail-w-0-0 attempt 0",
                                                    "[dfail-w-0-1] hi dfail-w-0-1 attempt 0"]
    rc, out, err = logs(r, "dfail", "-c", "nope")
    assert rc == 2 and "no pod log matches" in err, err
    rc, out, err = logs(r, "dfail", "--since", "1h")
    assert rc == 0 and len(out.splitlines()) == 6, out
    rc, out, err = logs(r, "dfail", "--pod", "x", "dfail-w-0-0")
    assert rc == 2 and "POD and --pod" in err, err


def watch_then_go(r, args, lines):
    """`get ARGS` of r's home: its first `lines` lines, read while the run waits on its go file,
    then (go created) the rest once the watch ended with the run (exit 0)."""
    w = subprocess.Popen([BIN, "get", *args], env=dict(os.environ, JAXSET_HOME=r.home),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = "".join(w.stdout.readline() for _ in range(lines))
        assert w.poll() is None, f"the watch ended while the run goes: {first}"
        open(os.path.join(r.home, "go"), "w").close()
        out, err = w.communicate(timeout=30)
    finally:
        if w.poll() is None:
            w.kill()
            w.wait()
    r.wait(30)
    assert w.returncode == 0, f"the watch exited {w.returncode}: {err}"
    return first, out, err


@test
def get_watch_follows_a_run_until_it_ends():
    """`get NAME -w` locally: the table, then one line per change, until the run ends."""
    r = Run(manifest("gw", WAITING, pods=1)).start()
    wait_for(lambda: os.path.exists(os.path.join(r.run_dir("gw"), "run.json")), 20, "run.json")
    first, out, err = watch_then_go(r, ["gw", "-w"], 2)
    assert first.startswith("NAME") and "\ngw " in first, (first, out, err)
    states = [l.split()[1] for l in out.splitlines()]
    assert states and states[-1] == "Completed", out
    rc, out, err = jaxset(r.home, "get", "gw", "-w", "-o", "name")  # an ended run: at once
    assert rc == 0 and out == "jobset.jobset.x-k8s.io/gw\n", (out, err)


@test
def get_watch_of_a_pod_follows_its_run():
    """`get pod/NAME -w` locally goes on while the pod's run does (its run, not a run named as
    the pod), and ends with it, having shown the pod's last phase."""
    r = Run(manifest("gp", WAITING, pods=1)).start()

    def pod_name():
        rc, out, _ = jaxset(r.home, "get", "pods", "--all", "-o",
                           "jsonpath={.items[*].metadata.name}")
        return out.strip() if rc == 0 and out.strip() else None
    pod = wait_for(pod_name, 20, "the pod")
    first, out, err = watch_then_go(r, [f"pod/{pod}", "-w", "-o",
                                        "jsonpath={.status.phase}{\"\\n\"}"], 1)
    assert first.strip() in ("Pending", "Running"), first
    assert out.split()[-1:] == ["Succeeded"], (first, out)


@test
def delete_takes_several_names_and_all_and_get_lists_every_run():
    home = tempfile.mkdtemp(prefix="jaxset-test-")
    for name, ago in (("a", 30), ("a", 20), ("b", 10), ("c", 5)):
        if os.path.islink(os.path.join(home, "runs", name, "latest")):
            os.unlink(os.path.join(home, "runs", name, "latest"))
        fake_run(home, name, ago, "Completed", end_after=1, terminal="Completed")
    rc, out, err = jaxset(home, "get", "--all-runs")
    rows = [l.split() for l in out.splitlines()]
    assert rc == 0 and rows[0][:3] == ["NAME", "RUN", "STATE"], out
    assert [r[0] for r in rows[1:]] == ["c", "b", "a", "a"], out
    rc, out, err = jaxset(home, "get", "--all-runs", "-o", "json")
    ids = [i["metadata"]["annotations"]["jaxset.dev/run-id"] for i in json.loads(out)["items"]]
    assert rc == 0 and len(set(ids)) == 4, ids
    rc, out, err = jaxset(home, "delete", "a", "jobset/b")
    assert rc == 0 and out == 'run "a" deleted\nrun "b" deleted\n', (out, err)
    assert not os.path.exists(os.path.join(home, "runs", "a")), os.listdir(home + "/runs")
    rc, out, err = jaxset(home, "delete", "--all")
    assert rc == 0 and out == 'run "c" deleted\n', (out, err)
    rc, out, err = jaxset(home, "get")
    assert rc == 0 and out == "" and "No resources found" in err, (out, err)


@test
def run_keeps_the_last_runs_of_a_name():
    """Retention: `jaxset run` keeps the JAXSET_KEEP_RUNS newest runs of a name (10 unless
    set), the one it starts among them."""
    r = Run(manifest("keep", "true", pods=1), env={"JAXSET_KEEP_RUNS": "2"})
    for _ in range(3):
        r.run()
        assert r.rc == 0, r.describe()
    kept = sorted(d for d in os.listdir(os.path.join(r.home, "runs", "keep")) if d != "latest")
    assert len(kept) == 2, kept
    latest = os.path.basename(os.path.realpath(os.path.join(r.home, "runs", "keep", "latest")))
    assert latest == kept[-1], (latest, kept)
    rc, out, err = jaxset(r.home, "get", "--all-runs", "-o", "name")
    assert rc == 0 and out == "jobset.jobset.x-k8s.io/keep\n" * 2, out


def commands():
    rc, out, err = jaxset("/nonexistent", "help")
    assert rc == 0, err
    body = out.split("\nCommands:\n")[1].split("\n\n")[0]
    return [l.split()[0] for l in body.splitlines()]


def options_in_source(cmd):
    """The options a command's source gives getopt_long: long names and short letters."""
    path = os.path.join(SRC, "src", "cli", f"cmd_{cmd}.c")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        src = f.read()
    opts = [f"--{n}" for n in re.findall(r'\{"([a-z][a-z-]*)", (?:no|required|optional)_'
                                          r'argument', src)]
    if "CLI_OUTPUT_LONGOPT" in src:
        opts += ["--output", "-o"]
    for short in re.findall(r'cli_parse\(argc, argv, "([^"]*)"', src):
        opts += [f"-{c}" for c in short if c != ":"]
    return opts


@test
def every_command_has_help():
    cmds = commands()
    for c in ("validate", "render", "run", "get", "describe", "logs", "help", "version"):
        assert c in cmds, cmds
    for c in cmds:
        rc, out, err = jaxset("/nonexistent", c, "--help")
        assert rc == 0 and err == "" and out.startswith(f"usage: jaxset {c}"), (c, out, err)
        assert "\nOptions:\n" in out and "\nExit status:" in out, out
        assert jaxset("/nonexistent", c, "-h")[1] == out, c
        assert jaxset("/nonexistent", "help", c)[1] == out, c
        for o in options_in_source(c):
            assert re.search(rf"(^|[ ,\[|]){re.escape(o)}\b", out, re.M), (c, o, out)
    # help wins wherever it is and whatever else is wrong
    rc, out, _ = jaxset("/nonexistent", "run", "--bogus", "nofile.yaml", "--help")
    assert rc == 0 and out.startswith("usage: jaxset run FILE..."), out
    rc, out, err = jaxset("/nonexistent", "help", "nope")
    assert rc == 2 and out == "" and 'unknown command "nope"' in err, err
    rc, out, err = jaxset("/nonexistent")
    assert rc == 2 and "Commands:" in err, err
    # a usage error is one line that says what is wrong, and one that says where the help is
    rc, out, err = jaxset("/nonexistent", "logs")
    lines = err.splitlines()
    assert rc == 2 and len(lines) == 2 and lines[0].startswith("jaxset logs: "), err
    assert lines[1] == "See `jaxset logs --help`.", err
    # a mistyped command or flag gets the nearest name
    rc, out, err = jaxset("/nonexistent", "valdate")
    assert rc == 2 and err == ('jaxset: unknown command "valdate" (did you mean validate?)\n'
                               "See `jaxset --help`.\n"), err
    rc, out, err = jaxset("/nonexistent", "run", "--bogus", "x.yaml")
    assert rc == 2 and err.splitlines()[0] == "jaxset run: unknown flag: --bogus", err
    rc, out, err = jaxset("/nonexistent", "run", "--grace", "abc", "x.yaml")
    assert rc == 2 and err.splitlines()[0] == 'jaxset run: invalid value "abc" for --grace', err


if __name__ == "__main__":
    main()
