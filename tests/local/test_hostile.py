"""`jaxset run` against hostile pods and a hostile clock: processes that leave their group or
session, a killed watchdog, and a wall clock stepped while a job runs."""
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from localtest import BIN, SRC, Run, main, test, wait_for  # noqa: E402


def jobset(name, script, extra_spec=""):
    """A JobSet of one pod whose container runs a Python script."""
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
        backoffLimit: 0{extra_spec}
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: c
              command: ["python3", "-c", {script!r}]
"""


def pid_alive(pid):
    """True while pid runs (a zombie has ended: it only waits to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def read_pid(r, name="pid"):
    path = os.path.join(r.home, name)
    return wait_for(lambda: os.path.exists(path) and open(path).read().strip(), 20,
                    f"the pod writing {name}") and int(open(path).read())


def cleanup(*pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (OSError, TypeError):
            pass


# A pod whose main process starts `setsid sleep 1000` (its own session and group: no group
# kill reaches it), writes its pid, then runs `then`.
def setsid_pod(name, then):
    return jobset(name, "import os, subprocess, time; "
                        "p = subprocess.Popen(['setsid', 'sleep', '1000']); "
                        f"open(os.environ['JAXSET_HOME'] + '/pid', 'w').write(str(p.pid)); {then}")


@test
def setsid_child_is_gone_when_the_run_ends():
    r = Run(setsid_pod("setsid-ends", "time.sleep(0.5)")).start()
    pid = read_pid(r)
    try:
        r.wait(60)
        assert r.rc == 0, r.describe()
        wait_for(lambda: not pid_alive(pid), 10, f"the setsid child {pid} gone")
    finally:
        cleanup(pid)


@test
def double_forked_daemon_is_gone_when_its_pod_ends():
    # the classic daemon: fork, setsid, fork again, the middle process exits at once
    script = ("import os, time\n"
              "if os.fork() == 0:\n"
              "    os.setsid()\n"
              "    if os.fork() == 0:\n"
              "        open(os.environ['JAXSET_HOME'] + '/pid', 'w').write(str(os.getpid()))\n"
              "        time.sleep(1000)\n"
              "    os._exit(0)\n"
              "os.wait()\n"
              "while not os.path.exists(os.environ['JAXSET_HOME'] + '/pid'): time.sleep(0.05)\n")
    r = Run(jobset("daemon", script)).start()
    pid = read_pid(r)
    try:
        r.wait(60)
        assert r.rc == 0, r.describe()
        wait_for(lambda: not pid_alive(pid), 10, f"the daemon {pid} gone")
    finally:
        cleanup(pid)


@test
def setsid_child_is_gone_after_sigterm_of_jaxset():
    r = Run(setsid_pod("setsid-term", "time.sleep(1000)")).start()
    pid = read_pid(r)
    try:
        r.proc.send_signal(signal.SIGTERM)
        r.wait(60)
        assert r.rc == 143, r.describe()
        wait_for(lambda: not pid_alive(pid), 10, f"the setsid child {pid} gone")
        assert not r.leftovers(), r.leftovers()
    finally:
        cleanup(pid)


@test
def setsid_child_is_gone_after_sigkill_of_jaxset():
    r = Run(setsid_pod("setsid-kill", "time.sleep(1000)")).start()
    pid = read_pid(r)
    try:
        r.proc.kill()
        r.proc.wait()
        wait_for(lambda: not pid_alive(pid), 10, f"the setsid child {pid} gone")
        wait_for(lambda: not r.leftovers(), 10, "every pod process gone")
    finally:
        cleanup(pid)


def watchdogs(jaxset_pid):
    """jaxset's children running jaxset's own program: its watchdog (a fork of it)."""
    found = []
    for d in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if (int(fields[1]) == jaxset_pid and fields[0] != "Z" and
                    os.path.realpath(f"/proc/{d}/exe") == os.path.realpath(BIN)):
                found.append(int(d))
        except (OSError, IndexError):
            continue
    return found


@test
def killed_watchdog_is_replaced_so_sigkill_still_leaves_no_pod_process():
    r = Run(setsid_pod("watchdog", "time.sleep(1000)")).start()
    pid = read_pid(r)
    try:
        old = wait_for(lambda: watchdogs(r.proc.pid), 10, "the watchdog")
        assert len(old) == 1, old
        os.kill(old[0], signal.SIGKILL)
        wait_for(lambda: [w for w in watchdogs(r.proc.pid) if w != old[0]], 10,
                 "a new watchdog")
        r.proc.kill()
        r.proc.wait()
        wait_for(lambda: not r.leftovers(), 10, "every pod process gone")
        assert not pid_alive(pid)
    finally:
        cleanup(pid)


_SHIM = []


def clockshift():
    """tests/local/clockshift.c built once with the system compiler (no sanitizer)."""
    if not _SHIM:
        so = os.path.join(tempfile.mkdtemp(prefix="jaxset-clock-"), "clockshift.so")
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", so,
                        os.path.join(SRC, "tests", "local", "clockshift.c")], check=True)
        _SHIM.append(so)
    return _SHIM[0]


def stepped_run(name, step_s):
    """A 4 s pod with activeDeadlineSeconds 100 that steps jaxset's wall clock by step_s one
    second in (through the shim's file), as settimeofday or NTP would."""
    script = ("import os, time; time.sleep(1); "
              "open(os.environ['JAXSET_HOME'] + '/clock', 'w').write(" + repr(str(step_s)) +
              "); time.sleep(3)")
    r = Run(jobset(name, script, "\n        activeDeadlineSeconds: 100"))
    asan = os.environ.get("ASAN_OPTIONS", "")
    r.env.update(LD_PRELOAD=clockshift(), JAXSET_TEST_CLOCK_FILE=os.path.join(r.home, "clock"),
                 ASAN_OPTIONS=(asan + ":" if asan else "") + "verify_asan_link_order=0")
    return r.run(60)


def took(r, what):
    """Seconds of "JobSet NAME <what> after N.Ns" in jaxset's output."""
    text = r.out + r.err
    key = f" {what} after "
    assert key in text, r.describe()
    return float(text.split(key, 1)[1].split("s", 1)[0])


@test
def wall_clock_stepped_forward_does_not_fail_the_deadline():
    r = stepped_run("clock-fwd", 7200)
    assert r.rc == 0, r.describe()
    assert 3 <= took(r, "Completed") < 60, r.describe()


@test
def wall_clock_stepped_back_gives_no_negative_duration():
    r = stepped_run("clock-back", -10800)
    assert r.rc == 0, r.describe()
    assert 3 <= took(r, "Completed") < 60, r.describe()


if __name__ == "__main__":
    main()
