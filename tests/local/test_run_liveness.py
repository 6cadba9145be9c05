"""Whether a local run is going rests on the lock its `jaxset run` holds on the run directory,
never on a pid alone: a run whose jaxset was SIGKILLed (run.json still says Running) is Lost
even once its pid names another process, and that process gets no signal from `suspend`,
`resume` or `delete --force`; `delete` and retention remove the run.  Also: JAXSET_KEEP_RUNS
that is no count is refused, a run kept with --run-dir is found by `get` and `delete`, and a
Lost run's DURATION runs to the last thing it recorded."""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from localtest import BIN, SRC, Run, main, test, wait_for  # noqa: E402


def manifest(name, script):
    """A JobSet of one pod running `sh -c script`."""
    return f"""apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: {name}
spec:
  replicatedJobs:
  - name: w
    replicas: 1
    template:
      spec:
        backoffLimit: 0
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: c
              command: ["sh", "-c", {script!r}]
"""


def jaxset(home, *args, timeout=30):
    p = subprocess.run([BIN, *args], env=dict(os.environ, JAXSET_HOME=home), cwd=SRC,
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def run_in(home, text, *args, env=None):
    """A Run of manifest `text` kept in `home` (several runs share one state home)."""
    r = Run(text, *args, env=env)
    r.home = home
    r.env["JAXSET_HOME"] = home
    return r


def read_run(r, name):
    path = os.path.join(r.run_dir(name), "run.json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def started(r, name):
    """Waits until run.json says Running and the pod's process runs."""
    wait_for(lambda: (read_run(r, name) or {}).get("state") == "Running" and
             r.leftovers(workers_only=True), 20, f"{name}'s pod running")


def kill_jaxset(r):
    """SIGKILL to `jaxset run`: it records no end; its watchdog ends the pods (sup_watchdog.c:
    the pipe from jaxset ends, every registered group is SIGKILLed)."""
    r.proc.send_signal(signal.SIGKILL)
    r.proc.communicate(timeout=10)
    wait_for(lambda: not r.leftovers(), 20, "the pods and the watchdog gone with jaxset")


def set_pid(r, name, pid):
    """run.json names `pid` as its process, as when a dead jaxset's pid is reused."""
    run = read_run(r, name)
    run["pid"] = pid
    with open(os.path.join(r.run_dir(name), "run.json"), "w", encoding="utf-8") as f:
        json.dump(run, f)


def stranger():
    """An unrelated live process: SIGUSR1 or SIGTERM would end it."""
    return subprocess.Popen(["sleep", "60"])


def lost_run(home, name):
    """A run of `name` in `home` whose jaxset was SIGKILLed while its pod ran, its run.json
    then naming a stranger's pid: (run, its directory, the stranger)."""
    r = run_in(home, manifest(name, "echo up; exec sleep 60")).start()
    started(r, name)
    kill_jaxset(r)
    s = stranger()
    set_pid(r, name, s.pid)
    assert read_run(r, name)["state"] == "Running"
    return r, r.run_dir(name), s


def row(home, name):
    rc, out, err = jaxset(home, "get", name)
    assert rc == 0 and len(out.splitlines()) == 2, (out, err)
    return out.splitlines()[1].split()


def end(*procs):
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()


@test
def a_dead_run_whose_pid_was_reused_is_lost_and_suspend_signals_no_stranger():
    home = tempfile.mkdtemp(prefix="jaxset-test-")
    r, d, s = lost_run(home, "reused")
    try:
        assert row(home, "reused")[1] == "Lost", row(home, "reused")
        rc, out, err = jaxset(home, "get", "reused", "-o", "json")
        ann = json.loads(out)["metadata"]["annotations"]
        assert rc == 0 and "jaxset.dev/run-pid" not in ann, ann
        for verb in ("suspend", "resume"):
            rc, out, err = jaxset(home, verb, "reused")
            assert rc == 2 and 'no running run of "reused"' in err and "Lost" in err, (rc, err)
            assert s.poll() is None, f"{verb} signalled the process that took the pid"
        assert not os.path.exists(os.path.join(d, "control.json")), os.listdir(d)
    finally:
        end(s)


@test
def a_dead_run_whose_pid_was_reused_is_deleted_and_force_signals_no_stranger():
    home = tempfile.mkdtemp(prefix="jaxset-test-")
    _, d1, s1 = lost_run(home, "gone")
    _, d2, s2 = lost_run(home, "forced")
    try:
        rc, out, err = jaxset(home, "delete", "gone")
        assert rc == 0 and out == 'run "gone" deleted\n', (out, err)
        assert not os.path.exists(d1) and s1.poll() is None, "delete refused it or signalled"
        rc, out, err = jaxset(home, "delete", "--force", "forced")
        assert rc == 0 and out == 'run "forced" deleted\n', (out, err)
        assert not os.path.exists(d2) and s2.poll() is None, "delete --force sent SIGTERM"
    finally:
        end(s1, s2)


@test
def a_dead_run_whose_pid_was_reused_is_pruned_by_retention():
    home = tempfile.mkdtemp(prefix="jaxset-test-")
    _, d, s = lost_run(home, "prune")
    try:
        r = run_in(home, manifest("prune", "true"), env={"JAXSET_KEEP_RUNS": "1"}).run()
        assert r.rc == 0, r.describe()
        assert not os.path.exists(d), "retention kept a dead run whose pid was reused"
        assert s.poll() is None
    finally:
        end(s)


@test
def a_live_run_is_known_by_its_lock_and_suspend_reaches_it_whatever_pid_is_recorded():
    """The pid shown (jaxset.dev/run-pid) and signalled is the lock's holder, jaxset itself."""
    home = tempfile.mkdtemp(prefix="jaxset-test-")
    r = run_in(home, manifest("live", "echo up; exec sleep 60")).start()
    s = stranger()
    try:
        started(r, "live")
        set_pid(r, "live", s.pid)
        rc, out, err = jaxset(home, "get", "live", "-o", "json")
        ann = json.loads(out)["metadata"]["annotations"]
        assert ann["jaxset.dev/run-state"] == "Running", ann
        assert ann["jaxset.dev/run-pid"] == str(r.proc.pid), (ann, r.proc.pid)
        rc, out, err = jaxset(home, "suspend", "live")
        assert rc == 0 and out.strip() == "jobset live suspended", (rc, out, err)
        assert s.poll() is None
        wait_for(lambda: not r.leftovers(workers_only=True), 20, "the pod stopped by suspend")
        r.proc.send_signal(signal.SIGTERM)
        r.wait(30)
        assert r.rc == 143 and "suspend requested" in r.err, r.describe()
    finally:
        end(r.proc, s)


@test
def a_run_kept_with_run_dir_is_found_by_get_and_delete():
    home = tempfile.mkdtemp(prefix="jaxset-test-")
    away = os.path.join(tempfile.mkdtemp(prefix="jaxset-test-away-"), "run")
    r = run_in(home, manifest("away", "echo hi"), "--run-dir", away).run()
    assert r.rc == 0, r.describe()
    rc, out, err = jaxset(home, "get", "away", "-o", "wide")
    assert rc == 0 and out.splitlines()[1].split()[1] == "Completed", (out, err)
    assert out.splitlines()[1].split()[-1] == os.path.realpath(away), out
    rc, out, err = jaxset(home, "logs", "away")
    assert rc == 0 and out.split() == ["[away-w-0-0]", "hi"], (out, err)
    r2 = run_in(home, manifest("away", "true")).run()  # a later run in the state home
    assert r2.rc == 0, r2.describe()
    rc, out, err = jaxset(home, "get", "--all-runs", "-o", "wide")
    dirs = [l.split()[-1] for l in out.splitlines()[1:]]
    assert rc == 0 and len(dirs) == 2 and os.path.realpath(away) in dirs, out
    rc, out, err = jaxset(home, "delete", "away")
    assert rc == 0 and out == 'run "away" deleted\n', (out, err)
    assert not os.path.exists(away), os.listdir(away)
    assert not os.path.exists(os.path.join(home, "runs", "away"))


def seconds(human):
    """runs_human's text ("7s", "1m5s", "2h") as seconds."""
    units = {"d": 86400, "h": 3600, "m": 60, "s": 1}
    parts = re.findall(r"(\d+)([dhms])", human)
    assert parts and "".join(n + u for n, u in parts) == human, human
    return sum(int(n) * units[u] for n, u in parts)


@test
def a_lost_run_shows_how_long_it_ran_until_its_last_record():
    home = tempfile.mkdtemp(prefix="jaxset-test-")
    r = run_in(home, manifest("dur", "echo a; sleep 2; echo b; exec sleep 60")).start()
    logs = os.path.join(r.run_dir("dur"), "logs")

    def said_b():
        return any("b" in open(os.path.join(logs, f)).read().split()
                   for f in (os.listdir(logs) if os.path.isdir(logs) else []))
    wait_for(said_b, 20, "echo b")
    kill_jaxset(r)
    name, state, _, _, age, duration, _ = row(home, "dur")
    assert state == "Lost" and seconds(duration) >= 2, (state, duration)
    assert seconds(duration) <= seconds(age), (age, duration)


@test
def keep_runs_that_is_no_count_is_refused_before_anything_starts():
    for value in ("-1", "abc", "1e3", "9" * 20, "2x"):
        for args in ((), ("--run-dir", os.path.join(tempfile.mkdtemp(), "d"))):
            r = Run(manifest("keep", "touch $JAXSET_HOME/ran"), *args,
                    env={"JAXSET_KEEP_RUNS": value}).run()
            assert r.rc == 2, (value, r.describe())
            assert f'JAXSET_KEEP_RUNS must be a number of runs to keep, 0 to 1000000 (0 keeps ' \
                   f'every run), not "{value}"' in r.err, r.describe()
            assert sorted(os.listdir(r.home)) == ["job.yaml"], os.listdir(r.home)
            assert not args or not os.path.exists(args[1]), args
    r = Run(manifest("keep", "true"), env={"JAXSET_KEEP_RUNS": "0"}).run()
    assert r.rc == 0, r.describe()


if __name__ == "__main__":
    main()
