"""`jaxset run` end to end on real processes: success and failure semantics, gang restarts,
ordering, in-place restarts, signals, concurrency, invalid input."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from localtest import BIN, SRC as SRC_DIR, Run, condition, main, test, wait_for  # noqa: E402

PY = "python3"


def rj(name, script, replicas=1, pods=1, restart="Never", backoff=0, extra_spec="",
       extra_rj="", env=""):
    """A replicatedJob whose single container runs a Python one-liner script."""
    return f"""
  - name: {name}
    replicas: {replicas}{extra_rj}
    template:
      spec:
        parallelism: {pods}
        completions: {pods}
        backoffLimit: {backoff}{extra_spec}
        template:
          spec:
            restartPolicy: {restart}
            containers:
            - name: c
              command: ["{PY}", "-c", {script!r}]
              env:
              - name: ATTEMPT
                valueFrom:
                  fieldRef:
                    fieldPath: metadata.labels['jobset.sigs.k8s.io/restart-attempt']{env}"""


def jobset(name, rjs, spec="", annotations=""):
    return f"""apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: {name}{annotations}
spec:{spec}
  replicatedJobs:{''.join(rjs)}
"""


@test
def completed_allreduce():
    r = Run.example("jax-allreduce.yaml").run()
    assert r.rc == 0, r.describe()
    sums = [l for l in r.out.splitlines() if "all-reduce sum = 10 (expected 10)" in l]
    assert len(sums) == 4, r.describe()
    for i in range(4):
        assert any(l.startswith(f"[allreduce-workers-0-{i}] process {i}/4") for l in sums), \
            r.describe()
    js = r.jobset("allreduce")
    assert js["status"]["terminalState"] == "Completed", js["status"]
    assert condition(js, "Completed")["reason"] == "AllJobsCompleted"
    logs = os.listdir(os.path.join(r.run_dir("allreduce"), "logs"))
    assert len(logs) == 4, logs
    assert not r.leftovers()


@test
def success_policy_any():
    leader = rj("leader", "print('leader done')")
    workers = rj("workers", "import time; time.sleep(60)", pods=2)
    spec = "\n  successPolicy:\n    operator: Any\n    targetReplicatedJobs: [leader]"
    t0 = time.monotonic()
    r = Run(jobset("anyjs", [leader, workers], spec)).run()
    assert r.rc == 0, r.describe()
    assert time.monotonic() - t0 < 30, "workers were not stopped when the JobSet completed"
    js = r.jobset("anyjs")
    assert js["status"]["terminalState"] == "Completed"
    assert not r.leftovers()


@test
def success_policy_all_targets():
    a = rj("a", "print('a')")
    b = rj("b", "print('b')", replicas=2)
    spec = "\n  successPolicy:\n    operator: All\n    targetReplicatedJobs: [a, b]"
    r = Run(jobset("alljs", [a, b], spec)).run()
    assert r.rc == 0, r.describe()
    st = {s["name"]: s for s in r.jobset("alljs")["status"]["replicatedJobsStatus"]}
    assert st["a"]["succeeded"] == 1 and st["b"]["succeeded"] == 2, st


CRASH_ONCE = ("import os, sys; a = os.environ['ATTEMPT']; "
              "i = os.environ['JOB_COMPLETION_INDEX']; print('attempt', a, 'index', i); "
              "sys.exit(3 if a == '0' and i == '1' else 0)")


def gang_restart(strategy):
    w = rj("w", CRASH_ONCE, pods=3)
    spec = f"\n  failurePolicy:\n    maxRestarts: 2\n    restartStrategy: {strategy}"
    r = Run(jobset("gang", [w], spec)).run()
    assert r.rc == 0, r.describe()
    js = r.jobset("gang")
    assert js["status"]["restarts"] == 1, js["status"]
    assert js["status"].get("restartsCountTowardsMax") == 1, js["status"]
    for i in range(3):
        assert f"[gang-w-0-{i}] attempt 1 index {i}" in r.out, r.describe()
    assert re.search(r"Warning DefaultFailurePolicy: applying RestartJobSet failure policy "
                     r"action: gang-w-0-1 \(pod gang-w-0-1-\w{5}, container c\) exited with "
                     r"code 3: attempt 0 index 1\n", r.err), r.describe()
    c = [c for c in js["status"]["conditions"] if c["type"] == "RestartingJobSet"]
    assert c and c[0]["status"] == "False" and c[0]["reason"] == "JobSetCompleted", c
    assert not r.leftovers()


@test
def gang_restart_recreate():
    gang_restart("Recreate")


@test
def gang_restart_blocking_recreate():
    gang_restart("BlockingRecreate")


# Attempt 0: pods 1 and 2 ignore SIGTERM and sleep, pod 0 fails once they are ready; attempt 1
# succeeds.
STUBBORN_GANG = ("import os, signal, sys, time; a = os.environ['ATTEMPT']; "
                 "i = os.environ['JOB_COMPLETION_INDEX']; h = os.environ['JAXSET_HOME']; "
                 "a != '0' and (open(h + '/again.' + i, 'w').close(), sys.exit(0)); "
                 "i != '0' and (signal.signal(signal.SIGTERM, signal.SIG_IGN), "
                 "open(h + '/ready.' + i, 'w').close(), time.sleep(120)); "
                 "[time.sleep(0.02) for _ in iter(lambda: len([f for f in os.listdir(h) "
                 "if f.startswith('ready.')]) < 2, False)]; sys.exit(1)")


def restart_took(home):
    """From attempt 0's last pod ready (pod 0 fails right after) to attempt 1's first pod
    running: the restart alone, not the interpreters' start of attempt 0, which a loaded
    machine makes slow."""
    def mtimes(prefix):
        return [os.path.getmtime(os.path.join(home, f)) for f in os.listdir(home)
                if f.startswith(prefix)]
    return min(mtimes("again.")) - max(mtimes("ready."))


@test
def restart_grace_annotation():
    # the harness passes --grace 5: without the annotation the restart would wait 5 s
    ann = "\n  annotations:\n    jaxset.dev/restart-grace-seconds: \"1\""
    w = rj("w", STUBBORN_GANG, pods=3)
    spec = "\n  failurePolicy:\n    maxRestarts: 1"
    r = Run(jobset("rgrace", [w], spec, ann)).run()
    took = restart_took(r.home)
    assert r.rc == 0, r.describe()
    assert r.jobset("rgrace")["status"]["restarts"] == 1
    assert 1 <= took < 4.5, f"the restart took {took:.1f}s, want about the 1 s restart grace"
    assert "the restart waited 1 s for pods that ignored SIGTERM" in r.err, r.describe()
    assert "jaxset.dev/restart-grace-seconds" in r.err, r.describe()
    assert not r.leftovers()


@test
def restart_grace_option():
    # --restart-grace 0 overrides a longer annotation: the stubborn pods are killed at once
    ann = "\n  annotations:\n    jaxset.dev/restart-grace-seconds: \"30\""
    w = rj("w", STUBBORN_GANG, pods=3)
    r = Run(jobset("rgopt", [w], "\n  failurePolicy:\n    maxRestarts: 1", ann),
            "--restart-grace", "0").run()
    took = restart_took(r.home)
    assert r.rc == 0, r.describe()
    assert took < 4, f"the restart took {took:.1f}s, want no grace at all (not the 30 s)"
    assert "the restart waited" not in r.err, r.describe()


@test
def exclusive_placement_is_accepted_and_said_once_not_to_apply():
    """upstream's exclusive-placement example (site/static/examples/simple): it runs, every
    pod here, and the run says once that placement per topology domain does not apply;
    the annotation on a replicated job's template alone says it too."""
    topo = "alpha.jobset.sigs.k8s.io/exclusive-topology"
    ann = f"\n  annotations:\n    {topo}: cloud.google.com/gke-nodepool"
    r = Run(jobset("excl", [rj("workers", "print(1)", replicas=3, pods=3)], "", ann)).run()
    assert r.rc == 0, r.describe()
    assert r.err.count("exclusive placement") == 1, r.describe()
    assert f"exclusive placement ({topo}: cloud.google.com/gke-nodepool) does not apply" in \
        r.err, r.describe()
    w = rj("workers", "print(1)", extra_rj="").replace(
        "    template:\n      spec:",
        f"    template:\n      metadata:\n        annotations:\n          {topo}: rack\n"
        "      spec:", 1)
    r = Run(jobset("exclrj", [w, rj("other", "print(2)")])).run()
    assert r.rc == 0, r.describe()
    assert r.err.count(f"exclusive placement ({topo}: rack) does not apply") == 1, r.describe()


@test
def restart_grace_annotation_invalid():
    ann = "\n  annotations:\n    jaxset.dev/restart-grace-seconds: \"-1\""
    r = Run(jobset("rgbad", [rj("w", "pass")], "", ann)).run()
    assert r.rc == 2, r.describe()
    assert ('metadata.annotations[jaxset.dev/restart-grace-seconds]: Invalid value: "-1": '
            "must be a whole number of seconds from 0 to 86400") in r.err, r.describe()
    assert not os.path.exists(os.path.join(r.home, "runs")), r.describe()


def pods_json(r, name):
    with open(os.path.join(r.run_dir(name), "pods.json"), encoding="utf-8") as f:
        return json.load(f)


@test
def pod_status_is_kept_and_the_first_failure_named():
    # attempt 0: pod 1 exits 3 and fails the gang (restart); attempt 1: pod 0 is killed by
    # SIGKILL from within; the pods of both attempts are in pods.json
    script = ("import os, signal, sys; a = os.environ['ATTEMPT']; "
              "i = os.environ['JOB_COMPLETION_INDEX']; "
              "sys.exit(3) if (a, i) == ('0', '1') else None; "
              "os.kill(os.getpid(), signal.SIGKILL) if (a, i) == ('1', '0') else None")
    w = rj("w", script, pods=2)
    r = Run(jobset("podst", [w], "\n  failurePolicy:\n    maxRestarts: 1")).run()
    assert r.rc == 1, r.describe()
    pods = pods_json(r, "podst")
    by = {(p["restartAttempt"], p["completionIndex"]): p for p in pods}
    assert set(by) == {(0, 0), (0, 1), (1, 0), (1, 1)}, pods
    p = by[(0, 1)]
    assert p["phase"] == "Failed" and p["hostname"] == "podst-w-0-1", p
    assert p["containers"][0]["exitCode"] == 3 and p["containers"][0]["reason"] == "Error", p
    assert p["startTime"] and p["finishTime"] and p["job"] == "podst-w-0", p
    k = by[(1, 0)]["containers"][0]
    assert k["exitCode"] == 137 and k["signal"] == "KILL", k
    # the failed Job's other pod was stopped by the Job controller: SIGTERM
    assert by[(1, 1)]["containers"][0].get("signal") in ("TERM", None), by[(1, 1)]
    assert "the first pod to fail: pod podst-w-0-0-" in r.err, r.describe()
    assert "(container c killed by SIGKILL)" in r.err, r.describe()


@test
def the_pod_that_failed_is_named_not_the_one_torn_down():
    # pod 1 exits 3; pod 0 is stopped by the teardown within the same second
    script = ("import os, sys, time; i = os.environ['JOB_COMPLETION_INDEX']; "
              "sys.exit(3) if i == '1' else time.sleep(60)")
    r = Run(jobset("named", [rj("w", script, pods=2)])).run()
    assert r.rc == 1, r.describe()
    assert "the first pod to fail: pod named-w-0-1-" in r.err, r.describe()
    assert "(container c exited with code 3)" in r.err, r.describe()


# Attempt 0: JAX process 2 (pod w-0-2) raises in a function, the others wait; attempt 1: the
# same again; maxRestarts 1, so the JobSet fails after one restart.
RAISES = ("import os, sys, time\n"
          "def step(n):\n"
          "    raise ValueError(f'loss is nan at step {n}')\n"
          "print('training', flush=True)\n"
          "os.environ['JOB_COMPLETION_INDEX'] == '2' and (time.sleep(0.3), step(7))\n"
          "time.sleep(60)\n")
JAX_ANN = "\n  annotations: {jaxset.dev/jax-runtime: jobset}"


def raising_run(name):
    w = rj("w", RAISES, pods=3)
    r = Run(jobset(name, [w], "\n  failurePolicy:\n    maxRestarts: 1", JAX_ANN)).run()
    assert r.rc == 1, r.describe()
    return r


@test
def a_restart_is_one_line_naming_the_failed_pod_process_and_error():
    r = raising_run("attr")
    restart = [l for l in r.err.splitlines() if "applying RestartJobSet" in l]
    assert len(restart) == 1, r.describe()  # not the condition's and the action's events both
    assert re.fullmatch(r"jaxset: Warning DefaultFailurePolicy: applying RestartJobSet failure "
                        r"policy action: attr-w-0-2 \(JAX process 2, pod attr-w-0-2-\w{5}, "
                        r"container c\) exited with code 1: ValueError: loss is nan at step 7 "
                        r"\(File \"<string>\", line 3, in step\)", restart[0]), restart
    lines = r.err.splitlines()
    assert len(lines) == len(set(lines)), r.describe()  # no two lines alike
    # events.log keeps both events, as a cluster's events
    with open(os.path.join(r.run_dir("attr"), "events.log"), encoding="utf-8") as f:
        assert f.read().count("applying RestartJobSet failure policy action") == 2


@test
def a_failed_run_ends_with_the_root_cause_in_the_terminal_pods_json_and_run_json():
    r = raising_run("root")
    block = r.err.split("jaxset: root cause (first observed failure, restart attempt 1):\n")
    assert len(block) == 2, r.describe()
    rows = block[1].split("\njaxset: JobSet root Failed")[0].splitlines()
    assert rows[0] == "  host        : root-w-0-2", rows
    assert re.fullmatch(r"  pod         : root-w-0-2-\w{5} \(job root-w-0\)", rows[1]), rows
    assert rows[2:5] == ["  JAX process : 2", "  container   : c", "  exit code   : 1"], rows
    assert re.fullmatch(r"  log         : .*/logs/root-w-0-2-\w{5}\.log", rows[5]), rows
    assert rows[6:] == ['  error       : File "<string>", line 3, in step',
                        "                ValueError: loss is nan at step 7"], rows
    pods = pods_json(r, "root")
    first = [p for p in pods if p.get("firstFailure")]
    assert [(p["restartAttempt"], p["hostname"]) for p in first] == \
        [(0, "root-w-0-2"), (1, "root-w-0-2")], pods
    msg = 'File "<string>", line 3, in step\nValueError: loss is nan at step 7'
    assert all(p["containers"][0]["message"] == msg for p in first), first
    with open(os.path.join(r.run_dir("root"), "run.json"), encoding="utf-8") as f:
        failure = json.load(f)["failure"]
    assert failure["pod"] == first[1]["name"] and failure["jaxProcessId"] == 2, failure
    assert failure["exitCode"] == 1 and failure["container"] == "c", failure
    assert failure["message"] == msg and failure["restartAttempt"] == 1, failure


@test
def a_pod_killed_by_a_signal_is_attributed_with_the_signal_and_its_last_lines():
    script = ("import os, signal; print('loaded shard 3', flush=True); "
              "os.kill(os.getpid(), signal.SIGKILL)")
    r = Run(jobset("oom", [rj("w", script)])).run()
    assert r.rc == 1, r.describe()
    assert re.search(r"Warning FailedJobs: jobset failed due to one or more job failures: "
                     r"oom-w-0-0 \(pod oom-w-0-0-\w{5}, container c\) was killed by SIGKILL: "
                     r"loaded shard 3\n", r.err), r.describe()
    assert "  exit code   : 137 (SIGKILL)\n" in r.err, r.describe()


@test
def a_job_that_failed_without_a_failed_pod_is_named_with_its_reason():
    w = rj("w", "import time; time.sleep(60)", extra_spec="\n        activeDeadlineSeconds: 1")
    r = Run(jobset("late", [w])).run()
    assert r.rc == 1, r.describe()
    assert ("Warning FailedJobs: jobset failed due to one or more job failures: job late-w-0 "
            "failed: DeadlineExceeded: Job was active longer than specified deadline\n") in r.err, \
        r.describe()
    # the pod the deadline stopped is not named as the cause
    assert "the first pod to fail" not in r.err, r.describe()
    assert ("the first failure: job late-w-0 failed: DeadlineExceeded: Job was active longer "
            "than specified deadline\n") in r.err, r.describe()


@test
def on_failure_restarts_are_counted_per_pod():
    # restartPolicy OnFailure: the container fails twice in place, then succeeds
    script = ("import os, sys; f = os.environ['JAXSET_HOME'] + '/n'; "
              "n = int(open(f).read()) if os.path.exists(f) else 0; "
              "open(f, 'w').write(str(n + 1)); sys.exit(1 if n < 2 else 0)")
    r = Run(jobset("onf", [rj("w", script, restart="OnFailure", backoff=5)]),
            "--restart-backoff", "1").run()
    assert r.rc == 0, r.describe()
    pods = pods_json(r, "onf")
    assert len(pods) == 1 and pods[0]["restartCount"] == 2, pods
    assert pods[0]["phase"] == "Succeeded", pods


@test
def invalid_message_pattern_warns_and_never_matches():
    # upstream's webhook takes any pattern and its controller skips one Go cannot compile: the
    # rule below never matches, so the failure restarts the JobSet instead of failing it
    w = rj("w", "import os, sys; sys.exit(1 if os.environ['ATTEMPT'] == '0' else 0)")
    spec = """
  failurePolicy:
    maxRestarts: 1
    rules:
    - name: never
      action: FailJobSet
      onJobFailureMessagePatterns: ["(unclosed"]"""
    r = Run(jobset("pat", [w], spec)).run()
    assert r.rc == 0, r.describe()
    assert ('Warning: ' in r.err and 'onJobFailureMessagePatterns[0]: Invalid value: "(unclosed": '
            'not a valid RE2 (Go regexp) pattern: missing ): (unclosed') in r.err, r.describe()
    assert r.jobset("pat")["status"]["restarts"] == 1


@test
def max_restarts_reached():
    w = rj("w", "import sys; sys.exit(1)")
    r = Run(jobset("maxr", [w], "\n  failurePolicy:\n    maxRestarts: 1")).run()
    assert r.rc == 1, r.describe()
    js = r.jobset("maxr")
    assert condition(js, "Failed")["reason"] == "ReachedMaxRestarts", js["status"]
    assert js["status"]["restarts"] == 1


@test
def crash_looping_gang_restarts_with_backoff():
    # every attempt fails at once: attempt 1 starts at once, then 2, 3, 4 wait 100, 200,
    # 400 ms (--restart-backoff 100)
    w = rj("w", "import sys; sys.exit(1)")
    t0 = time.monotonic()
    r = Run(jobset("loop", [w], "\n  failurePolicy:\n    maxRestarts: 4"),
            "--restart-backoff", "100").run()
    took = time.monotonic() - t0
    assert r.rc == 1, r.describe()
    assert r.jobset("loop")["status"]["restarts"] == 4
    assert took >= 0.65, f"4 quick restarts took {took:.2f}s, want the backoff (>= 0.7 s)"
    for attempt, delay in ((2, "0.1"), (3, "0.2"), (4, "0.4")):
        assert f"restart attempt {attempt} starts in {delay} s" in r.err, r.describe()
    assert "restart attempt 1 starts" not in r.err, r.describe()


@test
def fail_jobset_rule_on_target():
    ok = rj("driver", "import time; time.sleep(60)")
    bad = rj("workers", "import sys; sys.exit(2)")
    spec = """
  failurePolicy:
    maxRestarts: 5
    rules:
    - name: failFast
      action: FailJobSet
      onJobFailureReasons: [BackoffLimitExceeded]
      targetReplicatedJobs: [workers]"""
    r = Run(jobset("failjs", [ok, bad], spec)).run()
    assert r.rc == 1, r.describe()
    js = r.jobset("failjs")
    c = condition(js, "Failed")
    assert c and c["reason"] == "FailJobSetFailurePolicyAction", js["status"]
    assert "failjs-workers-0" in c["message"]
    assert js["status"]["restarts"] == 0
    assert not r.leftovers()


@test
def deadline_exceeded():
    w = rj("w", "import time; time.sleep(60)", extra_spec="\n        activeDeadlineSeconds: 1")
    t0 = time.monotonic()
    r = Run(jobset("dl", [w])).run()
    assert r.rc == 1, r.describe()
    assert time.monotonic() - t0 < 20
    js = r.jobset("dl")
    assert "DeadlineExceeded" in open(os.path.join(r.run_dir("dl"), "jobs.json")).read()
    assert condition(js, "Failed")["reason"] == "FailedJobs"


PER_INDEX_JOB = """
  - name: w
    replicas: 1
    template:
      spec:
        parallelism: 3
        completions: 3
        backoffLimitPerIndex: 1{extra}
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: c
              command: ["{py}", "-c", {script!r}]"""


def job_of(r, name):
    with open(os.path.join(r.run_dir(name), "jobs.json"), encoding="utf-8") as f:
        return json.load(f)[0]


@test
def backoff_limit_per_index_fails_one_index():
    # index 1 fails twice: with backoffLimitPerIndex 1 it is failed and not retried again, the
    # others complete, then the Job fails with FailedIndexes (backoffLimit unset: no Job-wide
    # limit), which a failure-policy rule names.
    script = ("import os, sys; i = os.environ['JOB_COMPLETION_INDEX']; "
              "print('run', i, flush=True); sys.exit(3 if i == '1' else 0)")
    spec = """
  failurePolicy:
    maxRestarts: 3
    rules:
    - action: FailJobSet
      onJobFailureReasons: [FailedIndexes]"""
    r = Run(jobset("perindex", [PER_INDEX_JOB.format(extra="", py=PY, script=script)],
                   spec)).run()
    assert r.rc == 1, r.describe()
    runs = sorted(l.split("] ", 1)[1] for l in r.out.splitlines() if "] run " in l)
    assert runs == ["run 0", "run 1", "run 1", "run 2"], r.describe()
    st = job_of(r, "perindex")["status"]
    assert st["failedIndexes"] == "1" and st["completedIndexes"] == "0,2", st
    assert st["failed"] == 2 and st["succeeded"] == 2, st
    c = [c for c in st["conditions"] if c["type"] == "Failed"]
    assert c and c[0]["reason"] == "FailedIndexes" and c[0]["message"] == \
        "Job has failed indexes", st
    js = r.jobset("perindex")
    assert condition(js, "Failed")["reason"] == "FailJobSetFailurePolicyAction", js["status"]
    assert js["status"].get("restarts", 0) == 0, js["status"]
    assert not r.leftovers()


@test
def job_success_policy_completes_early():
    # index 0 succeeding meets the Job's successPolicy: the other indexes are stopped.
    script = ("import os, sys, time; i = os.environ['JOB_COMPLETION_INDEX']; "
              "time.sleep(0 if i == '0' else 60)")
    extra = "\n        successPolicy:\n          rules:\n          - succeededIndexes: '0'"
    t0 = time.monotonic()
    r = Run(jobset("jobsp", [PER_INDEX_JOB.format(extra=extra, py=PY, script=script)])).run()
    assert r.rc == 0, r.describe()
    assert time.monotonic() - t0 < 30, "the other indexes were not stopped"
    st = job_of(r, "jobsp")["status"]
    types = [c["type"] for c in st["conditions"]]
    assert types == ["SuccessCriteriaMet", "Complete"], st
    assert all(c["reason"] == "SuccessPolicy" and c["message"] == "Matched rules at index 0"
               for c in st["conditions"]), st
    assert st["succeeded"] == 1 and st.get("failed", 0) == 0, st
    assert r.jobset("jobsp")["status"]["terminalState"] == "Completed"
    assert not r.leftovers()


@test
def depends_on_complete_then_ready():
    init = rj("init", "import os, time; time.sleep(0.3); "
              "open(os.environ['JAXSET_HOME'] + '/init.done', 'w').close()")
    work = rj("work", "import os, sys; sys.exit(0 if os.path.exists("
              "os.environ['JAXSET_HOME'] + '/init.done') else 9)",
              extra_rj="\n    dependsOn: [{name: init, status: Complete}]")
    r = Run(jobset("dep", [init, work])).run()
    assert r.rc == 0, r.describe()


@test
def in_order_startup():
    first = rj("first", "import time; time.sleep(1.5)")
    second = rj("second", "print('second')")
    spec = "\n  startupPolicy:\n    startupPolicyOrder: InOrder"
    r = Run(jobset("ordered", [first, second], spec)).run()
    assert r.rc == 0, r.describe()
    js = r.jobset("ordered")
    assert condition(js, "StartupPolicyCompleted"), js["status"]


@test
def on_failure_restarts_count_against_backoff_limit():
    w = rj("w", "print('run'); import sys; sys.exit(1)", restart="OnFailure", backoff=2)
    r = Run(jobset("onf", [w])).run()
    assert r.rc == 1, r.describe()
    with open(os.path.join(r.run_dir("onf"), "jobs.json"), encoding="utf-8") as f:
        jobs = f.read()
    assert "BackoffLimitExceeded" in jobs, jobs
    runs = [l for l in r.out.splitlines() if l.endswith("] run")]
    # Kubernetes fails the Job when the restart count reaches backoffLimit (2): the crash of
    # the second run does it; jaxset does not start the third run Kubernetes would kill.
    assert len(runs) == 2, r.describe()


def signal_stops_everything(sig, want_rc):
    w = rj("w", "import time; print('up', flush=True); time.sleep(120)", pods=3)
    r = Run(jobset("sig", [w])).start()
    wait_for(lambda: len(r.leftovers(workers_only=True)) == 3, 20, "3 workers running")
    r.proc.send_signal(sig)
    r.wait(30)
    assert r.rc == want_rc, r.describe()
    assert not r.leftovers(), r.leftovers()


@test
def sigint_stops_everything():
    signal_stops_everything(signal.SIGINT, 130)


@test
def sigterm_stops_everything():
    signal_stops_everything(signal.SIGTERM, 143)


@test
def sighup_stops_everything():
    signal_stops_everything(signal.SIGHUP, 129)


@test
def closed_stdout_does_not_stop_the_run():
    # `jaxset run F | head -1`: the reader goes away after one line; the run goes on to the
    # end, every log complete on disk, the state final
    w = rj("w", "[print('line', i, flush=i % 100 == 0) for i in range(3000)]", pods=2)
    r = Run(jobset("piped", [w]))
    r.args.remove("--no-color")
    r.start()
    first = r.proc.stdout.readline()
    r.proc.stdout.close()
    err = r.proc.stderr.read()
    rc = r.proc.wait(60)
    assert first.startswith("[piped-w-0-"), first
    assert rc == 0, f"rc={rc}\n{err}"
    logs = os.path.join(r.run_dir("piped"), "logs")
    for name in os.listdir(logs):
        with open(os.path.join(logs, name), encoding="utf-8") as f:
            lines = f.read().splitlines()
        assert len(lines) == 3000 and lines[-1] == "line 2999", (name, len(lines))
    with open(os.path.join(r.run_dir("piped"), "run.json"), encoding="utf-8") as f:
        assert json.load(f)["state"] == "Completed"
    assert pod_lines_in_events(r, "piped") == []
    assert not r.leftovers()


def pod_lines_in_events(r, name):
    with open(os.path.join(r.run_dir(name), "events.log"), encoding="utf-8") as f:
        return [line for line in f if line.startswith(f"[{name}-")]


@test
def a_closed_stdout_keeps_pod_output_out_of_the_events_log():
    # `jaxset run F >&-`: the events log, opened first, must not become fd 1; pod output goes
    # to the pods' log files only
    w = rj("w", "[print('line', i) for i in range(80)]")
    r = Run(jobset("closed", [w]))
    r.args = ["sh", "-c", 'exec "$@" >&-', "sh", *r.args]
    r.run()
    assert r.rc == 0, r.describe()
    assert pod_lines_in_events(r, "closed") == [], pod_lines_in_events(r, "closed")[:3]
    logs = os.path.join(r.run_dir("closed"), "logs")
    for name in os.listdir(logs):
        with open(os.path.join(logs, name), encoding="utf-8") as f:
            assert f.read().splitlines()[-1] == "line 79", name


@test
def stalled_reader_does_not_stall_supervision():
    # nobody reads jaxset's stdout while a pod floods it: the Job's 2 s deadline still ends
    # the run on time, the log file keeps everything, and jaxset says how much it skipped
    w = rj("w", "[print('x' * 1000) for _ in iter(int, 1)]",
           extra_spec="\n        activeDeadlineSeconds: 2")
    r = Run(jobset("stall", [w])).start()
    t0 = time.monotonic()
    rc = r.proc.wait(30)  # stdout is never read
    took = time.monotonic() - t0
    err = r.proc.stderr.read()
    assert rc == 1, f"rc={rc}\n{err}"
    assert took < 15, f"took {took:.1f}s"
    m = re.search(r"(\d+) bytes of pod output were not forwarded", err)
    assert m, err
    # what the pod wrote in 2 s depends on the machine's load (7.5 MB with the suite run twice
    # beside a CPU hog); the log file still holds far more than any pipe buffers
    log = os.path.join(r.run_dir("stall"), "logs")
    size = sum(os.path.getsize(os.path.join(log, f)) for f in os.listdir(log))
    assert int(m.group(1)) > 0 and size > 1024 * 1024, (size, m.group(0))
    assert not r.leftovers()


@test
def huge_replicas_are_refused_before_anything_is_written():
    r = Run(jobset("huge", [rj("w", "pass", replicas=1000000000)]))
    t0 = time.monotonic()
    r.run(timeout=20)
    assert r.rc == 2, r.describe()
    assert ("spec.replicatedJobs: the job has 1000000000 pods; jaxset runs at most 10000 on one "
            "machine") in r.err, r.describe()
    assert not os.path.exists(os.path.join(r.home, "runs")), r.describe()
    out = subprocess.run([BIN, "render", r.path], capture_output=True, text=True, timeout=20)
    assert out.returncode == 2 and out.stdout == "", out
    assert "spec.replicatedJobs: 1000000000 child Jobs; render prints at most 10000" in out.stderr
    assert time.monotonic() - t0 < 5


@test
def too_few_open_files_is_refused_before_anything_starts():
    # 600 containers need 1,264 open files; a hard limit of 1,024 cannot hold their logs
    w = rj("w", "pass", pods=600)
    r = Run(jobset("fds", [w]))
    r.args = ["sh", "-c", 'ulimit -n 1024 && exec "$@"', "sh", *r.args]
    r.run()
    assert r.rc == 2, r.describe()
    assert "the job runs up to 600 containers at once, which need 1264 open files" in r.err, \
        r.describe()
    assert not os.path.exists(os.path.join(r.home, "runs")), r.describe()


@test
def suspend_and_resume_a_running_run():
    w = rj("w", "import time; print('up', flush=True); time.sleep(120)", pods=2)
    r = Run(jobset("sus", [w])).start()
    wait_for(lambda: len(r.leftovers(workers_only=True)) == 2, 20, "2 workers")
    env = dict(r.env)
    p = subprocess.run([BIN, "suspend", "sus"], env=env, capture_output=True, text=True,
                       timeout=20)
    assert p.returncode == 0 and p.stdout.strip() == "jobset sus suspended", p
    wait_for(lambda: not r.leftovers(workers_only=True), 20, "pods stopped by the suspend")
    wait_for(lambda: condition(r.jobset("sus"), "Suspended"), 10, "Suspended=True")
    # `get` shows the state a cluster's JobSet would have (it said Running)
    p = subprocess.run([BIN, "get", "sus"], env=env, capture_output=True, text=True, timeout=20)
    assert p.returncode == 0 and p.stdout.splitlines()[1].split()[1] == "Suspended", p
    p = subprocess.run([BIN, "resume", "sus"], env=env, capture_output=True, text=True,
                       timeout=20)
    assert p.returncode == 0 and p.stdout.strip() == "jobset sus resumed", p
    wait_for(lambda: len(r.leftovers(workers_only=True)) == 2, 20, "2 workers again")
    r.proc.send_signal(signal.SIGTERM)
    r.wait(30)
    assert r.rc == 143, r.describe()
    assert "suspend requested" in r.err and "resume requested" in r.err, r.describe()
    p = subprocess.run([BIN, "resume", "sus"], env=env, capture_output=True, text=True)
    assert p.returncode == 2 and 'no running run of "sus"' in p.stderr, p


@test
def a_run_that_waits_says_why():
    # replicas: 0 everywhere: nothing to run, as on a cluster the JobSet just waits
    r = Run(jobset("zero", [rj("w", "pass", replicas=0)])).start()
    first = r.proc.stderr.readline()  # the run's first word is why it waits
    r.proc.send_signal(signal.SIGINT)
    r.wait(20)
    assert r.rc == 130, r.describe()
    assert "every replicated job has replicas: 0, so there is nothing to run" in first, first
    # suspended from the start: says so, and `jaxset resume` lets it run to the end
    r = Run(jobset("held", [rj("w", "print('ran')")], "\n  suspend: true")).start()
    wait_for(lambda: os.path.exists(os.path.join(r.home, "runs", "held", "latest")) and
             os.path.exists(os.path.join(r.run_dir("held"), "run.json")), 10, "the run")
    p = subprocess.run([BIN, "resume", "held"], env=r.env, capture_output=True, text=True,
                       timeout=20)
    assert p.returncode == 0, p
    r.wait(30)
    assert r.rc == 0 and "[held-w-0-0] ran" in r.out, r.describe()
    assert "nothing starts until `jaxset resume NAME`" in r.err, r.describe()


@test
def grace_period_then_sigkill():
    # each worker ignores SIGTERM, then leaves a file saying so
    w = rj("w", "import os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
           "open(os.environ['JAXSET_HOME'] + '/ready.' + os.environ['HOSTNAME'], 'w').close(); "
           "time.sleep(120)", pods=2)
    r = Run(jobset("stubborn", [w])).start()
    wait_for(lambda: len([f for f in os.listdir(r.home) if f.startswith("ready.")]) == 2, 20,
             "2 workers ignoring SIGTERM")
    t0 = time.monotonic()
    r.proc.send_signal(signal.SIGINT)
    r.wait(60)
    took = time.monotonic() - t0
    assert r.rc == 130, r.describe()
    # --grace 5 (set by the harness): SIGTERM is ignored, SIGKILL comes after the grace period
    assert 4.5 <= took < 15, f"stopped after {took:.1f}s, want about the 5 s grace period"
    assert not r.leftovers()


@test
def an_in_place_restart_says_what_the_failed_container_said():
    script = ("import os, sys, time\n"
              "def load():\n"
              "    raise RuntimeError('bad batch')\n"
              "f = os.environ['JAXSET_HOME'] + '/failed'\n"
              "if os.environ['JOB_COMPLETION_INDEX'] == '1':\n"
              "    os.path.exists(f) or (open(f, 'w').close(), load())\n"
              "    open(f + '.again', 'w').close()\n"
              "while not os.path.exists(f + '.again'):\n"
              "    time.sleep(0.02)\n")
    w = rj("w", script, pods=2, backoff=2147483647,
           extra_spec="\n        podReplacementPolicy: Failed")
    spec = "\n  failurePolicy:\n    maxRestarts: 2\n    restartStrategy: InPlaceRestart"
    r = Run(jobset("ipx", [w], spec), "--feature-gates", "InPlaceRestart=true").run()
    assert r.rc == 0, r.describe()
    assert re.search(r"pod ipx-w-0-1-\w{5}: container c exited 1: the pod restarts in place "
                     r"\(in-place restart attempt 1\): RuntimeError: bad batch \(File "
                     r"\"<string>\", line 3, in load\)\n", r.err), r.describe()


class Tty:
    """The run's stderr on a pseudo-terminal (the live line is drawn on a terminal only),
    read as it comes."""

    def __init__(self, r):
        import pty
        import threading
        master, slave = pty.openpty()
        r.proc = subprocess.Popen(r.args, cwd=SRC_DIR, env=r.env, stdout=subprocess.DEVNULL,
                                  stderr=slave)
        os.close(slave)
        self.data = b""
        self.lock = threading.Lock()

        def read():
            while True:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    os.close(master)
                    return
                with self.lock:
                    self.data += chunk
        self.reader = threading.Thread(target=read, daemon=True)
        self.reader.start()

    def text(self):
        with self.lock:
            return self.data.decode("utf-8", "replace")

    def live_lines(self):
        """Every state the live line was drawn in (what follows a clear and ends without a
        newline: the notes printed after a clear end with one)."""
        return [s for s in self.text().split("\r\033[K")[1:] if s and "\n" not in s]

    def wait_live(self, pattern, timeout=30):
        return wait_for(lambda: any(re.fullmatch(pattern, l) for l in self.live_lines()),
                        timeout, f"a live line {pattern!r}; got {self.live_lines()[-3:]}")


@test
def the_live_line_counts_pods_running_terminating_and_done_and_every_interrupt_says_so():
    # pod 0 ends at once; pods 1 and 2 ignore SIGTERM (so they stay in their grace period)
    script = ("import os, signal, time; i = os.environ['JOB_COMPLETION_INDEX']; "
              "i == '0' and exit(0); signal.signal(signal.SIGTERM, signal.SIG_IGN); "
              "open(os.environ['JAXSET_HOME'] + '/ready.' + i, 'w').close(); time.sleep(120)")
    r = Run(jobset("live", [rj("w", script, pods=3)]), "--grace", "60")
    tty = Tty(r)
    tty.wait_live(r"jaxset: \d+s  pods 2 running, 0 terminating, 1 done of 3  restarts 0")
    # both survivors ignore SIGTERM only once their interpreter got that far
    wait_for(lambda: all(os.path.exists(os.path.join(r.home, "ready." + i)) for i in "12"),
             20, "pods 1 and 2 ignoring SIGTERM")
    r.proc.send_signal(signal.SIGINT)
    tty.wait_live(r"jaxset: \d+s  pods 0 running, 2 terminating, 1 done of 3  restarts 0  "
                  r"stopping \(interrupt again to kill\)")
    r.proc.send_signal(signal.SIGINT)
    r.proc.wait(30)
    tty.reader.join(10)
    assert r.proc.returncode == 130, tty.text()
    out = tty.text()
    assert "jaxset: received SIGINT: stopping every pod" in out, out
    assert "jaxset: received SIGINT again: killing every pod now (SIGKILL)" in out, out
    for line in tty.live_lines():  # no "[0m08s": the minutes never look like an escape
        assert re.match(r"jaxset: (\d+h)?(\d+m)?\d+s  pods ", line), line
    assert not r.leftovers(), r.leftovers()


@test
def second_signal_forces():
    w = rj("w", "import os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
           "open(os.environ['JAXSET_HOME'] + '/ready', 'w').close(); time.sleep(120)")
    r = Run(jobset("forced", [w])).start()
    wait_for(lambda: os.path.exists(os.path.join(r.home, "ready")), 20, "the worker running")
    r.proc.send_signal(signal.SIGTERM)
    wait_for(lambda: "received SIGTERM" in open(os.path.join(r.home, "runs", "forced", os.listdir(
        os.path.join(r.home, "runs", "forced"))[0], "events.log")).read(), 10, "the first signal")
    t0 = time.monotonic()
    r.proc.send_signal(signal.SIGTERM)
    r.wait(30)
    assert r.rc == 143, r.describe()
    assert time.monotonic() - t0 < 3, "the second signal did not skip the grace period"
    assert not r.leftovers()


@test
def sigkill_leaves_no_orphan():
    w = rj("w", "import subprocess, time; subprocess.Popen(['sleep', '120']); "
           "time.sleep(120)", pods=2)
    r = Run(jobset("killed", [w])).start()
    wait_for(lambda: len(r.leftovers(workers_only=True)) == 4, 20,
             "2 workers and their children")
    r.proc.kill()
    r.proc.wait()
    wait_for(lambda: not r.leftovers(), 10, "every worker gone after SIGKILL")


@test
def sigkill_while_starting_a_large_job_leaves_no_orphan():
    # each spawned group is registered with the watchdog before its program runs, so killing
    # jaxset at any moment of a 300-pod start leaves nothing behind
    for kill_after in (1, 60, 200):
        w = f"""
  - name: w
    replicas: 1
    template:
      spec:
        parallelism: 300
        completions: 300
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: c
              command: ["sleep", "120"]"""
        r = Run(jobset("big", [w])).start()
        wait_for(lambda: len(r.leftovers(workers_only=True)) >= kill_after, 30,
                 f"{kill_after} workers started")
        r.proc.kill()
        r.proc.wait()
        wait_for(lambda: not r.leftovers(), 20, "every worker gone after SIGKILL")


@test
def two_runs_at_once_do_not_collide():
    a, b = Run.example("jax-allreduce.yaml").start(), Run.example("jax-allreduce.yaml").start()
    a.wait(90)
    b.wait(90)
    assert a.rc == 0, a.describe()
    assert b.rc == 0, b.describe()


@test
def invalid_manifest_starts_nothing():
    bad = jobset("bad", [rj("w", "print(1)", replicas=-1)])
    r = Run(bad).run()
    assert r.rc == 2, r.describe()
    assert "spec.replicatedJobs[0].replicas" in r.err, r.describe()
    assert not os.path.exists(os.path.join(r.home, "runs")), "a run directory was created"
    assert not r.leftovers()


@test
def no_command_is_invalid():
    text = jobset("nocmd", [rj("w", "x")]).replace('command: ["python3", "-c", \'x\']', "image: x")
    r = Run(text).run()
    assert r.rc == 2, r.describe()
    assert "has no command" in r.err, r.describe()
    assert not os.path.exists(os.path.join(r.home, "runs")), "a run directory was left"
    # validate says the same as run, with the same message; --cluster checks only what a
    # cluster would (an image entrypoint is fine there)
    v = subprocess.run([BIN, "validate", r.path], capture_output=True, text=True)
    msg = r.err.split(": ", 2)[2].strip()
    assert v.returncode == 2 and msg in v.stderr, (v, msg)
    v = subprocess.run([BIN, "validate", "--cluster", r.path], capture_output=True, text=True)
    assert v.returncode == 0 and ": valid: JobSet default/nocmd" in v.stdout, v


@test
def run_dir_rules():
    w = rj("w", "print('hi', flush=True)", pods=2)
    r = Run(jobset("rdir", [w]), "--run-dir", "").run()
    assert r.rc == 2 and "--run-dir must not be empty" in r.err, r.describe()
    used = tempfile.mkdtemp(prefix="jaxset-used-")
    open(os.path.join(used, "other"), "w").close()
    r = Run(jobset("rdir", [w]), "--run-dir", used).run()
    assert r.rc == 2 and "exists and is not an empty directory" in r.err, r.describe()
    assert sorted(os.listdir(used)) == ["other"], os.listdir(used)
    # a long run directory (1,016 characters) keeps every pod's log apart
    base = tempfile.mkdtemp(prefix="jaxset-long-")
    long_dir = os.path.join(base, *(["d" * 200] * 5))[:len(base) + 1016]
    r = Run(jobset("rdir", [w]), "--run-dir", long_dir).run()
    assert r.rc == 0, r.describe()
    logs = sorted(os.listdir(os.path.join(long_dir, "logs")))
    assert len(logs) == 2 and all(l.startswith("rdir-w-0-") for l in logs), logs
    # no HOME, no JAXSET_HOME, no XDG_STATE_HOME: refused, never /tmp
    r = Run(jobset("rdir", [w]))
    env = {k: v for k, v in r.env.items() if k not in ("JAXSET_HOME", "XDG_STATE_HOME")}
    env["HOME"] = ""
    p = subprocess.run(r.args, env=env, capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "neither JAXSET_HOME, XDG_STATE_HOME nor HOME is set" in \
        p.stderr, p


@test
def run_files_are_private_whatever_the_umask():
    w = rj("w", "print('secret', flush=True)")
    r = Run(jobset("priv", [w]))
    r.args = ["sh", "-c", 'umask 0 && exec "$@"', "sh", *r.args]
    r.run()
    assert r.rc == 0, r.describe()
    d = r.run_dir("priv")
    modes = {name: os.stat(os.path.join(d, name)).st_mode & 0o777
             for name in ("", "logs", "jobset.json", "jobs.json", "pods.json", "run.json",
                          "events.log", "hosts")}
    modes["log"] = os.stat(os.path.join(d, "logs", os.listdir(os.path.join(d, "logs"))[0])
                           ).st_mode & 0o777
    assert modes == {"": 0o700, "logs": 0o700, "jobset.json": 0o600, "jobs.json": 0o600,
                     "pods.json": 0o600, "run.json": 0o600, "events.log": 0o600,
                     "hosts": 0o600, "log": 0o600}, {k: oct(v) for k, v in modes.items()}


@test
def a_deleted_run_directory_is_reported():
    # the run directory disappears mid-run: the pods finish, the run says what it could not
    # keep, and the exit status is not a silent 0
    script = ("import os, time; h = os.environ['JAXSET_HOME']; "
              "open(h + '/up', 'w').close(); "
              "[time.sleep(0.02) for _ in iter(lambda: not os.path.exists(h + '/go'), False)]; "
              "print('after', flush=True)")
    r = Run(jobset("gone", [rj("w", script)])).start()
    wait_for(lambda: os.path.exists(os.path.join(r.home, "up")), 20, "the pod to start")
    shutil.rmtree(os.path.join(r.home, "runs"))
    open(os.path.join(r.home, "go"), "w").close()
    r.wait(30)
    assert r.rc == 1, r.describe()
    assert "cannot keep the run's" in r.err, r.describe()
    assert "the job completed, but its record in" in r.err, r.describe()
    assert "[gone-w-0-0] after" in r.out, r.describe()


@test
def validate_reports_what_the_job_api_refuses():
    # a Job successPolicy the Job API refuses at creation: validate says so as run would
    w = rj("w", "pass", pods=2, extra_spec="""
        completionMode: Indexed
        successPolicy:
          rules: [{succeededIndexes: "0-2"}]""")
    r = Run(jobset("spbad", [w]))
    v = subprocess.run([BIN, "validate", r.path], capture_output=True, text=True)
    assert v.returncode == 2, v
    assert ("spec.replicatedJobs[0].template.spec.successPolicy.rules[0].succeededIndexes: "
            'Invalid value: "0-2"') in v.stderr, v.stderr
    r.run()
    assert r.rc == 2 and "succeededIndexes" in r.err, r.describe()


@test
def other_kinds_beside_the_job_are_skipped():
    text = """apiVersion: v1
kind: Service
metadata: {name: web}
spec: {}
---
""" + jobset("mixed", [rj("w", "print('ran')")])
    r = Run(text).run()
    assert r.rc == 0 and "[mixed-w-0-0] ran" in r.out, r.describe()
    assert "skipped v1 Service web (not a job jaxset runs)" in r.err, r.describe()
    r = Run(text, "--strict-kinds").run()
    assert r.rc == 2 and 'kind: Unsupported value: "Service"' in r.err, r.describe()


@test
def configmaps_and_secrets_beside_the_job_feed_its_env():
    objects = """apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {LR: "0.1", MODE: train}
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
data: {TOKEN: c2VjcmV0LXZhbHVl}
stringData: {USER: alice}
---
"""
    env = """
              - name: LR2
                valueFrom: {configMapKeyRef: {name: settings, key: LR}}
              - name: GONE
                valueFrom: {secretKeyRef: {name: nope, key: x, optional: true}}"""
    script = ("import os; e = os.environ; print('env', e['LR2'], e['CFG_MODE'], e['TOKEN'], "
              "e['USER'], 'GONE' in e)")
    w = rj("w", script, env=env).replace("              env:\n", """              envFrom:
              - configMapRef: {name: settings}
                prefix: CFG_
              - secretRef: {name: creds}
              env:
""")
    r = Run(objects + jobset("cfg", [w])).run()
    assert r.rc == 0, r.describe()
    assert "] env 0.1 train secret-value alice False" in r.out, r.describe()
    assert "skipped" not in r.err, r.describe()  # ConfigMaps and Secrets are used, not skipped
    bad = w.replace("name: settings, key: LR", "name: settings, key: NOPE")
    r = Run(objects + jobset("cfg", [bad])).run()
    assert r.rc == 2 and 'ConfigMap "settings" has no key "NOPE"' in r.err, r.describe()


@test
def get_and_logs():
    w = rj("w", "print('hello from', __import__('os').environ['HOSTNAME'])", pods=2)
    r = Run(jobset("gl", [w])).run()
    assert r.rc == 0, r.describe()
    import subprocess
    from localtest import BIN
    env = dict(os.environ, JAXSET_HOME=r.home)
    p = subprocess.run([BIN, "get"], env=env, capture_output=True, text=True)
    assert p.returncode == 0 and "gl" in p.stdout and "Completed" in p.stdout, p.stdout
    p = subprocess.run([BIN, "get", "gl", "-o", "json"], env=env, capture_output=True, text=True)
    assert '"terminalState": "Completed"' in p.stdout, p.stdout
    p = subprocess.run([BIN, "logs", "gl", "gl-w-0-1"], env=env, capture_output=True, text=True)
    assert p.stdout.strip() == "hello from gl-w-0-1", p.stdout


@test
def logs_of_a_running_run_and_follow():
    import select
    import subprocess
    from localtest import BIN
    w = rj("w", "import os, time; print('first', flush=True); "
           "go = os.environ['JAXSET_HOME'] + '/go'; "
           "[time.sleep(0.02) for _ in iter(lambda: os.path.exists(go), True)]; "
           "print('second')")
    old = Run(jobset("fol", [rj("w", "print('an older run')")]))
    assert old.run().rc == 0, old.describe()
    r = Run(jobset("fol", [w]))
    r.home = old.home  # same JAXSET_HOME: `latest` must move to the new run as it starts
    r.env["JAXSET_HOME"] = old.home
    r.start()
    env = dict(os.environ, JAXSET_HOME=r.home)

    def plain():
        p = subprocess.run([BIN, "logs", "fol", "fol-w-0-0"], env=env, capture_output=True,
                           text=True)
        return p.returncode == 0 and p.stdout == "first\n"
    wait_for(plain, 20, "`jaxset logs` showing the running run's first line")
    f = subprocess.Popen([BIN, "logs", "-f", "fol"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    ready, _, _ = select.select([f.stdout], [], [], 20)
    assert ready, "logs -f printed nothing"
    assert f.stdout.readline().endswith("] first\n")
    time.sleep(0.3)  # following: it must still be running while the run is
    assert f.poll() is None, "logs -f stopped before the run ended"
    open(os.path.join(r.home, "go"), "w").close()
    out, err = f.communicate(timeout=20)
    assert f.returncode == 0, err
    assert out.endswith("] second\n"), out
    r.wait(30)
    assert r.rc == 0, r.describe()


@test
def pod_environment_and_hostnames():
    script = ("import os, socket; e = os.environ; "
              "print('env', e['HOSTNAME'], e['JOB_COMPLETION_INDEX'], e['JAX_PROCESS_ID'], "
              "e['JAX_NUM_PROCESSES'], e['POD'], e['NS']); "
              "print('dns', socket.gethostbyname('envjs-w-1-0.envjs'), "
              "socket.gethostbyname('envjs-w-0-1'))")
    env = """
              - name: POD
                valueFrom: {fieldRef: {fieldPath: metadata.name}}
              - name: NS
                valueFrom: {fieldRef: {fieldPath: metadata.namespace}}"""
    w = rj("w", script, replicas=2, pods=2, env=env)
    ann = "\n  annotations: {jaxset.dev/jax-runtime: jobset}"
    r = Run(jobset("envjs", [w], annotations=ann)).run()
    assert r.rc == 0, r.describe()
    for job in range(2):
        for pod in range(2):
            host = f"envjs-w-{job}-{pod}"
            line = [l for l in r.out.splitlines() if l.startswith(f"[{host}] env ")]
            assert len(line) == 1, r.describe()
            f = line[0].split()
            # HOSTNAME, completion index, process id (global ordinal), count, pod name, ns
            assert f[2:6] == [host, str(pod), str(job * 2 + pod), "4"], line
            assert f[6].startswith(host + "-") and len(f[6]) == len(host) + 6, line
            assert f[7] == "default", line
    dns = [l for l in r.out.splitlines() if "] dns " in l]
    assert len(dns) == 4 and all(l.endswith("dns 127.0.0.1 127.0.0.1") for l in dns), \
        r.describe()


@test
def own_ld_preload_and_hosts_file_are_kept():
    # the container's LD_PRELOAD goes after jaxset's nss_wrapper, and its own
    # NSS_WRAPPER_HOSTS file is merged with the pods' names
    libm = next((p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/lib/aarch64-linux-gnu/libm.so.6",
                             "/lib64/libm.so.6") if os.path.exists(p)), None)
    assert libm, "no libm to preload"
    home = tempfile.mkdtemp(prefix="jaxset-hosts-")
    own = os.path.join(home, "hosts")
    with open(own, "w", encoding="utf-8") as f:
        f.write("127.0.0.7 my-db\n")
    script = ("import os, socket; print('pre', os.environ['LD_PRELOAD']); "
              "print('dns', socket.gethostbyname('my-db'), socket.gethostbyname('own-w-0-0'))")
    env = f"""
              - name: LD_PRELOAD
                value: {libm}
              - name: NSS_WRAPPER_HOSTS
                value: {own}"""
    r = Run(jobset("own", [rj("w", script, env=env)])).run()
    assert r.rc == 0, r.describe()
    pre = [l for l in r.out.splitlines() if "] pre " in l]
    assert len(pre) == 1 and pre[0].endswith(":" + libm), r.describe()
    assert "libnss_wrapper.so:" in pre[0], r.describe()
    assert "] dns 127.0.0.7 127.0.0.1" in r.out, r.describe()


@test
def missing_working_dir_is_named():
    w = rj("w", "pass", extra_rj="")
    w = w.replace("            - name: c\n", "            - name: c\n              workingDir: /nonexistent/wd\n")
    r = Run(jobset("wdir", [w])).run()
    assert r.rc == 1, r.describe()
    assert "container c failed to start: workingDir /nonexistent/wd: No such file or directory" \
        in r.err, r.describe()


@test
def volume_claim_policies():
    # the child Job mounts the claim <template>-<jobset> as upstream builds it, render prints
    # the PVC, and locally the claim is a directory of the run
    w = rj("w", "pass").replace("            - name: c\n", "            - name: c\n"
                                "              volumeMounts: [{name: data, mountPath: /data}]\n")
    spec = """
  volumeClaimPolicies:
  - templates:
    - metadata: {name: data, labels: {tier: scratch}}
      spec:
        accessModes: [ReadWriteOnce]
        resources: {requests: {storage: 1Gi}}
    retentionPolicy: {whenDeleted: Retain}"""
    r = Run(jobset("vcp", [w], spec))
    out = subprocess.run([BIN, "render", r.path, "-o", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    items = json.loads(out.stdout)["items"]
    pvc = [i for i in items if i["kind"] == "PersistentVolumeClaim"]
    assert len(pvc) == 1 and pvc[0]["metadata"]["name"] == "data-vcp", pvc
    assert pvc[0]["metadata"]["labels"] == {"tier": "scratch",
                                            "jobset.sigs.k8s.io/jobset-name": "vcp"}, pvc
    assert "ownerReferences" not in pvc[0]["metadata"], pvc  # Retain: not owned
    job = [i for i in items if i["kind"] == "Job"][0]
    vols = job["spec"]["template"]["spec"]["volumes"]
    assert vols == [{"name": "data", "persistentVolumeClaim": {"claimName": "data-vcp"}}], vols
    r.run()
    assert r.rc == 0, r.describe()
    assert os.path.isdir(os.path.join(r.run_dir("vcp"), "volumes", "data-vcp")), r.describe()


@test
def gpus_are_disjoint():
    res = """
              resources:
                limits: {nvidia.com/gpu: 2}"""
    show = "import os; print('gpus', repr(os.environ['CUDA_VISIBLE_DEVICES']))"
    text = jobset("gpus", [rj("g", show, pods=2), rj("cpu", show)])
    text = text.replace("""              env:""", res + """
              env:""", 1)
    r = Run(text, "--gpus", "4").run()
    assert r.rc == 0, r.describe()
    seen = sorted(l.split(" gpus ")[1] for l in r.out.splitlines() if " gpus " in l)
    assert seen == ["''", "'0,1'", "'2,3'"], r.describe()
    r = Run(text, "--gpus", "3").run()
    assert r.rc == 2 and "request 4 nvidia.com/gpu" in r.err, r.describe()
    assert not r.leftovers()


POD_WITH_INIT = """apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: multi
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        backoffLimit: 0
        template:
          spec:
            restartPolicy: Never
            initContainers:
            - name: prepare
              command: ["sh", "-c", "echo prepared; INIT_BODY"]
            - name: helper
              restartPolicy: Always
              command: ["sh", "-c", "echo sidecar up; exec sleep 120"]
            containers:
            - name: main
              command: ["sh", "-c", "echo main $HOSTNAME; MAIN_BODY"]
            - name: second
              command: ["sh", "-c", "echo second; sleep 0.2"]
"""


@test
def init_containers_sidecars_and_several_containers():
    t0 = time.monotonic()
    r = Run(POD_WITH_INIT.replace("INIT_BODY", "true").replace("MAIN_BODY", "true")).run()
    assert r.rc == 0, r.describe()
    assert time.monotonic() - t0 < 30, "the sidecar kept the pod alive"
    out = r.out.splitlines()
    for line in ("[multi-w-0-0/prepare] prepared", "[multi-w-0-0/helper] sidecar up",
                 "[multi-w-0-0/main] main multi-w-0-0", "[multi-w-0-0/second] second"):
        assert line in out, r.describe()
    assert out.index("[multi-w-0-0/prepare] prepared") < out.index(
        "[multi-w-0-0/main] main multi-w-0-0"), r.describe()
    logs = sorted(n.split(".", 1)[1] for n in os.listdir(
        os.path.join(r.run_dir("multi"), "logs")))
    assert logs == ["helper.log", "main.log", "prepare.log", "second.log"], logs
    assert not r.leftovers()


@test
def failing_init_container_fails_the_pod():
    r = Run(POD_WITH_INIT.replace("INIT_BODY", "exit 4").replace("MAIN_BODY", "true")).run()
    assert r.rc == 1, r.describe()
    assert "[multi-w-0-0/main]" not in r.out, r.describe()
    assert not r.leftovers()


@test
def failing_container_fails_the_pod_once_all_end():
    r = Run(POD_WITH_INIT.replace("INIT_BODY", "true").replace("MAIN_BODY", "exit 5")).run()
    assert r.rc == 1, r.describe()
    assert "[multi-w-0-0/second] second" in r.out, r.describe()
    assert not r.leftovers()


PATCHED_TRAINJOB = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: jax-patched}
spec:
  mlPolicy: {numNodes: 2, jax: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata:
            labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
          spec:
            template:
              spec:
                containers:
                - name: node
                  command: [python3, -c, "print('node', __import__('os').environ['JAX_PROCESS_ID'])"]
                - name: helper
                  command: [python3, -c, "import os; print('helper', os.environ.get('MODE'), os.environ['KEEP'])"]
                  env:
                  - {name: KEEP, value: kept}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: patched}
spec:
  runtimeRef: {name: jax-patched}
  runtimePatches:
  - manager: example.com/tuner
    trainingRuntimeSpec:
      template:
        spec:
          replicatedJobs:
          - name: node
            template:
              spec:
                template:
                  spec:
                    containers:
                    - name: CONTAINER
                      env:
                      - {name: MODE, value: patched}
"""


@test
def a_trainjob_runtime_patch_reaches_the_processes():
    # Trainer v2.3 merges spec.runtimePatches into the runtime's JobSet (strategic merge patch):
    # the helper container's env gains MODE and keeps KEEP, in every pod of the gang
    r = Run(PATCHED_TRAINJOB.replace("CONTAINER", "helper")).run()
    assert r.rc == 0, r.describe()
    out = r.out.splitlines()
    for pod in ("patched-node-0-0", "patched-node-0-1"):
        assert f"[{pod}/helper] helper patched kept" in out, r.describe()
    assert "[patched-node-0-1/node] node 1" in out, r.describe()
    r = Run.example("trainjob-patches.yaml").run()
    assert r.rc == 0, r.describe()
    for pod in ("patched-jax-node-0-0", "patched-jax-node-0-1"):
        assert f"[{pod}/helper] helper reads /data/mnist at info" in r.out.splitlines(), \
            r.describe()
    # as upstream's JobSet plugin: the node container's env comes from the TrainJob's trainer
    r = Run(PATCHED_TRAINJOB.replace("CONTAINER", "node")).run()
    assert r.rc == 2, r.describe()
    assert "spec.runtimePatches: Invalid value:" in r.err, r.describe()
    assert ("must not have envs for the dataset-initializer, model-initializer, node containers"
            in r.err), r.describe()
    assert "[patched-" not in r.out, r.describe()


@test
def a_multislice_trainjob_numbers_its_processes_across_its_jobs():
    # a trainer job of 2 replicas (multi-slice; a deliberate difference, README): numNodes 4 is
    # the total, 2 Jobs of 2 pods, ids 0..3 across the Jobs, each pod's id exactly once
    r = Run.example("trainjob-multislice.yaml").run()
    assert r.rc == 0, r.describe()
    for job, pod, pid in ((0, 0, 0), (0, 1, 1), (1, 0, 2), (1, 1, 3)):
        assert (f"[multislice-node-{job}-{pod}] process {pid}/4: all-reduce sum = 10 "
                "(expected 10)") in r.out.splitlines(), r.describe()
    # the JobSet kept for the run: two Jobs of parallelism 2, the second's pods numbered from 2
    # and without the plugin's completion-index fieldRef
    with open(os.path.join(r.run_dir("multislice"), "jobs.json"), encoding="utf-8") as f:
        jobs = sorted(json.load(f), key=lambda j: j["metadata"]["name"])
    assert [j["spec"]["parallelism"] for j in jobs] == [2, 2], r.describe()
    offsets = [j["spec"]["template"]["metadata"]["annotations"][
        "jaxset.dev/jax-process-id-offset"] for j in jobs]
    assert offsets == ["0", "2"], offsets
    env1 = {e["name"]: e for e in jobs[1]["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert "JAX_PROCESS_ID" not in env1 and env1["JAX_NUM_PROCESSES"]["value"] == "4", env1
    with open(os.path.join(SRC_DIR, "examples", "trainjob-multislice.yaml"), encoding="utf-8") as f:
        text = f.read()
    bad = Run(text.replace("  trainer:\n    numNodes: 4", "  trainer:\n    numNodes: 3")).run()
    assert bad.rc == 2 and ("spec.trainer.numNodes: Invalid value: 3: must be a multiple of "
                            "spec.template.spec.replicatedJobs[0].replicas (2)") in bad.err, \
        bad.describe()
    assert "[multislice-" not in bad.out, bad.describe()


@test
def trainjob_initializers_run_before_the_trainer():
    # Trainer v2.3's initializer jobs as ordinary processes: each gets its STORAGE_URI (and the
    # dataset's env) from the TrainJob's spec.initializer, writes into the shared "initializer"
    # claim, and the trainer's processes start once both are Complete (dependsOn).
    r = Run.example("trainjob-initializers.yaml").run()
    assert r.rc == 0, r.describe()
    out = r.out.splitlines()
    ds = "[finetune-dataset-initializer-0-0] dataset from hf://tatsu-lab/alpaca split train[:100]"
    md = "[finetune-model-initializer-0-0] model from hf://meta-llama/Llama-3.2-1B-Instruct"
    nodes = [f"[finetune-node-0-{i}] process {i} of 2 dataset hf://tatsu-lab/alpaca model "
             "hf://meta-llama/Llama-3.2-1B-Instruct" for i in (0, 1)]
    for line in (ds, md, *nodes):
        assert line in out, r.describe()
    assert max(out.index(ds), out.index(md)) < min(out.index(n) for n in nodes), r.describe()
    # without spec.initializer the runtime's own STORAGE_URI stays (here: none), so the
    # dataset initializer fails and the trainer never starts
    with open(os.path.join(SRC_DIR, "examples", "trainjob-initializers.yaml")) as f:
        text = f.read()
    r = Run(text[:text.index("  initializer:\n")] + "  trainer:\n    numNodes: 2\n").run()
    assert r.rc == 1, r.describe()
    assert "KeyError: 'STORAGE_URI'" in r.out + r.err, r.describe()
    assert "[finetune-node-" not in r.out, r.describe()


if __name__ == "__main__":
    main()
