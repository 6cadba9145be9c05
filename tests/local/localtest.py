"""Harness for the end-to-end tests of `jaxset run` on real processes.

Each test writes a manifest into a fresh temporary JAXSET_HOME, runs the binary, and asserts on
its exit status, output, the run directory, and the processes left on the machine.  Waits are
conditions with deadlines, never fixed sleeps."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid

BIN = os.path.abspath(os.environ.get("JAXSET_BIN", "build/jaxset"))
SRC = os.path.abspath(os.environ.get("JAXSET_SRC", "."))


def marked_pids(marker, workers_only=True):
    """Pids of live (non-zombie) processes whose environment holds JAXSET_TEST_MARKER=marker;
    with workers_only, jaxset itself and its watchdog (a fork of it) are left out."""
    pids = []
    needle = f"JAXSET_TEST_MARKER={marker}".encode()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                if needle not in f.read().split(b"\0"):
                    continue
            with open(f"/proc/{d}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
            if workers_only and os.path.realpath(f"/proc/{d}/exe") == os.path.realpath(BIN):
                continue
        except OSError:
            continue
        pids.append(int(d))
    return pids


def wait_for(cond, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = cond()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


class Run:
    """One `jaxset run` in its own JAXSET_HOME; processes carry a unique marker."""

    def __init__(self, manifest, *args, env=None):
        self.home = tempfile.mkdtemp(prefix="jaxset-test-")
        self.marker = uuid.uuid4().hex
        self.path = os.path.join(self.home, "job.yaml")
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(manifest)
        self.env = dict(os.environ, JAXSET_HOME=self.home, JAXSET_TEST_MARKER=self.marker,
                        **(env or {}))
        self.args = [BIN, "run", self.path, "--no-color", "--grace", "5", *args]
        self.proc = None

    @classmethod
    def example(cls, name, *args):
        """The example manifest examples/<name> run where it is, from another directory (/),
        as a user would run it from anywhere."""
        r = cls("", *args)
        r.path = os.path.join(SRC, "examples", name)
        r.args[2] = r.path
        r.cwd = "/"
        return r

    def start(self):
        self.proc = subprocess.Popen(self.args, cwd=getattr(self, "cwd", SRC), env=self.env,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        return self

    def wait(self, timeout=60):
        out, err = self.proc.communicate(timeout=timeout)
        self.out, self.err, self.rc = out, err, self.proc.returncode
        return self

    def run(self, timeout=60):
        return self.start().wait(timeout)

    def run_dir(self, name):
        return os.path.realpath(os.path.join(self.home, "runs", name, "latest"))

    def jobset(self, name):
        with open(os.path.join(self.run_dir(name), "jobset.json"), encoding="utf-8") as f:
            return json.load(f)

    def leftovers(self, workers_only=False):
        """Marked processes still alive: workers, and unless workers_only jaxset's own."""
        return marked_pids(self.marker, workers_only)

    def describe(self):
        return f"rc={getattr(self, 'rc', None)}\n--- stdout\n{self.out}\n--- stderr\n{self.err}"


def condition(js, ctype):
    for c in js.get("status", {}).get("conditions", []):
        if c["type"] == ctype and c["status"] == "True":
            return c
    return None


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def main():
    only = sys.argv[1:] or None
    passed = failed = 0
    for fn in TESTS:
        if only and fn.__name__ not in only:
            continue
        t0 = time.monotonic()
        try:
            fn()
            passed += 1
            print(f"ok   {fn.__name__} ({time.monotonic() - t0:.1f}s)", flush=True)
        except Exception as e:  # noqa: BLE001 - report every failure and go on
            failed += 1
            print(f"FAIL {fn.__name__}: {e}", flush=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)
