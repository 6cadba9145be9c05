"""The steps of test_upstream_clients.py's flows: each a named case (`flow/step`) that passes,
fails (with its reason, the flow going on) or is skipped (with why), and the polling helpers
its flows share."""
import contextlib
import os
import time
import traceback

TIMEOUT = float(os.environ.get("JAXSET_KUBE_TIMEOUT", "20"))
RUN_TIMEOUT = float(os.environ.get("JAXSET_SCHED_TIMEOUT", "120"))  # pods scheduled and run


class Skip(Exception):
    pass


def poll(cond, what, timeout):
    end = time.monotonic() + timeout
    last = None
    while True:
        try:
            v = cond()
            if v:
                return v
        except Exception as e:  # noqa: BLE001 - kept for the message, polled again
            last = e
        if time.monotonic() >= end:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}"
                                 + (f" (last error: {last!r})" if last else ""))
        time.sleep(0.1)


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


class Flow:
    """The steps of one flow: `with flow("name"):` runs a step, reported as flow/name."""

    def __init__(self, name):
        self.name = name
        self.passed, self.failed, self.skipped = [], [], []

    @contextlib.contextmanager
    def __call__(self, step):
        t0 = time.monotonic()
        try:
            yield
            self.passed.append(step)
            print(f"ok   {self.name}/{step} ({time.monotonic() - t0:.1f}s)", flush=True)
        except Skip as e:
            self.skipped.append(step)
            print(f"skip {self.name}/{step}: {e}", flush=True)
        except Exception as e:  # noqa: BLE001 - every step reported, the flow goes on
            self.failed.append(step)
            print(f"FAIL {self.name}/{step}: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc(limit=4)

    def skip_all(self, steps, why):
        for s in steps:
            with self(s):
                raise Skip(why)

    def summary(self):
        return (f"{self.name}: {len(self.passed)} passed, {len(self.failed)} failed, "
                f"{len(self.skipped)} skipped")


def running(pods):
    return [p for p in pods if (p.get("status") or {}).get("phase") == "Running"]


def importable(*modules):
    """None when every module imports, else why not."""
    for m in modules:
        try:
            __import__(m)
        except Exception as e:  # noqa: BLE001 - the reason a flow is skipped
            return f"import {m}: {type(e).__name__}: {e}"
    return None
